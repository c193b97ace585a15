// Names a lead form's post carries beside the form's own fields, and the default thank-you
// text: shared by the server, the hosted page and the embed script (app/embed/embed.ts),
// so this module imports nothing.

/**
 * The honeypot field: hidden from people, filled by bots that fill every input. Field
 * keys must start with a letter (FieldKeySchema), so it can never collide with a field.
 */
export const HONEYPOT_FIELD = "_hp";

/** The hidden field that carries a visitor's partial lead (decision 060): step pages and the embed. */
export const PARTIAL_FIELD = "_partialId";

export const UTM_KEYS = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"] as const;
export type UtmKey = (typeof UTM_KEYS)[number];

export const DEFAULT_SUCCESS_MESSAGE = "Thank you! We will be in touch soon.";

// The webhook endpoints' API schemas and event names, client-safe: the JSON API and the
// dashboard's /settings/webhooks share them (docs/api/webhooks.md).
import { z } from "zod";
import { FORBIDDEN_TEXT_MESSAGE, hasForbiddenText } from "~/utils/text-policy";

export const WEBHOOK_EVENTS = [
  "lead.created",
  "lead.deleted",
  "lead.updated",
  "support_request.created",
  "support_request.message_received",
  "support_request.status_changed",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_KINDS = ["standard", "slack"] as const;

const UrlTextSchema = z
  .string({ error: "Give the endpoint's URL." })
  .trim()
  .min(1, "Give the endpoint's URL.")
  .max(2048, "Use at most 2048 characters.");

const EventsSchema = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `Use one of ${WEBHOOK_EVENTS.join(", ")}.` }), {
    error: "Give a list of event types.",
  })
  .min(1, "Subscribe to at least one event.")
  .max(WEBHOOK_EVENTS.length)
  .transform((events) => [...new Set(events)]);

const DescriptionSchema = z
  .string({ error: "Use text." })
  .trim()
  .max(500, "Use at most 500 characters.")
  .refine((value) => !hasForbiddenText(value), FORBIDDEN_TEXT_MESSAGE);

const FormIdSchema = z.string({ error: "Use a form id or null." }).trim().min(1).max(64).nullable();

export const CreateWebhookSchema = z
  .object({
    url: UrlTextSchema,
    events: EventsSchema,
    formId: FormIdSchema.optional().default(null),
    description: DescriptionSchema.optional().default(""),
    kind: z.enum(WEBHOOK_KINDS, { error: "Use standard or slack." }).optional().default("standard"),
  })
  .strict();

export const UpdateWebhookSchema = z
  .object({
    url: UrlTextSchema.optional(),
    events: EventsSchema.optional(),
    formId: FormIdSchema.optional(),
    description: DescriptionSchema.optional(),
    /** false disables the endpoint; true enables it again (and forgets why it was disabled). */
    enabled: z.boolean({ error: "Use true or false." }).optional(),
  })
  .strict();

/**
 * The dashboard's endpoint form (/settings/webhooks/:id), as Conform reads its post: every
 * input is sent, so an empty one means none (all forms, no description). Not strict: the
 * post carries its `intent` beside the fields.
 */
export const EndpointFormSchema = z.object({
  url: UrlTextSchema,
  events: EventsSchema,
  formId: FormIdSchema.optional().default(null),
  description: DescriptionSchema.optional().default(""),
});

/** The dashboard's "New endpoint" form (/settings/webhooks): the endpoint form and its kind. */
export const NewEndpointFormSchema = EndpointFormSchema.extend({
  kind: z.enum(WEBHOOK_KINDS, { error: "Use standard or slack." }).optional().default("standard"),
});

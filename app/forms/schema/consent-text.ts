// A consent field's text (issue 32, item 3; decision 065): the exact words a visitor agrees
// to, shown beside the box, with links written `[label](https://…)`. Nothing else in the text
// is markup: it is shown as typed (React escapes it), and a link is only ever an http(s)
// address, so a text cannot carry `javascript:` or any other scheme into the page. Shared by
// the server (validation at save) and the browser (the hosted page, the builder's preview).

export const CONSENT_TEXT_MAX = 5_000;

/** A piece of a consent text: plain text, or a link. */
export type ConsentPart = { text: string } | { text: string; href: string };

// `[label](target)`: a label without brackets or line breaks, a target without spaces or
// parentheses. Written to match in linear time (no nested quantifiers).
const LINK = /\[([^[\]\n]{1,200})\]\(([^()\s]{1,2048})\)/g;
// Anything written like a link (`[…](…`), for validation: each must be a LINK to http(s).
const LINK_LIKE = /\[([^[\]\n]{0,200})\]\(([^)\n]{0,2048})\)?/g;
const WHOLE_LINK = new RegExp(`^${LINK.source}$`);

/** The target of a link when it is an http(s) address, or null. */
function httpHref(target: string): string | null {
  try {
    const url = new URL(target);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** What is wrong with a consent text's links (one message per bad link), empty when nothing. */
export function consentTextProblems(text: string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(LINK_LIKE)) {
    const link = WHOLE_LINK.exec(match[0]);
    if (!link || !httpHref(link[2])) {
      problems.push(
        `The link "${match[1]}" must point to a full http:// or https:// address, without spaces or parentheses (not "${match[2].slice(0, 100)}").`,
      );
    }
  }
  return problems;
}

/**
 * What is wrong with a field as a consent field, or with a text on another type: `[path,
 * message]` pairs for the field schema (form-schema.ts).
 */
export function consentFieldProblems(field: {
  type: string;
  text?: string;
  defaultValue?: unknown;
}): Array<[string, string]> {
  if (field.type !== "consent") {
    return field.text === undefined ? [] : [["text", "A text only applies to consent fields."]];
  }
  const problems: Array<[string, string]> = field.text
    ? consentTextProblems(field.text).map((message) => ["text", message])
    : [["text", "A consent field needs the text the visitor agrees to."]];
  // Consent is given by ticking the box, never by leaving it as it was (GDPR art. 7, recital 32).
  if (field.defaultValue !== undefined)
    problems.push(["defaultValue", "A consent box starts unticked: give it no default."]);
  return problems;
}

/** The text as plain pieces and links, in order (a link that is not http(s) stays plain text). */
export function consentParts(text: string): ConsentPart[] {
  const parts: ConsentPart[] = [];
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const href = httpHref(match[2]);
    if (!href) continue;
    if (match.index > at) parts.push({ text: text.slice(at, match.index) });
    parts.push({ text: match[1], href });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}

/** The text as a reader sees it, links as `label (address)`: for exports and emails. */
export function consentPlainText(text: string): string {
  return consentParts(text)
    .map((part) => ("href" in part ? `${part.text} (${part.href})` : part.text))
    .join("");
}

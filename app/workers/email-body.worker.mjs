// Runs in a worker thread (app/models/email-body.server.ts): turns an inbound email's
// body into the text a thread shows. The quotation and HTML libraries can take seconds
// on hostile input (regular expressions that backtrack, very deep HTML); here they
// cannot hold the server's event loop, and the pool stops a task that runs too long.
// Plain JavaScript: piscina loads this file as it is, in the built server and in tests.
import EmailReplyParser from "email-reply-parser";
import { convert } from "html-to-text";

/** At most this much text goes to the quotation parser: the new text of a reply is at its top. */
const QUOTE_INPUT_LIMIT = 32 * 1024;

// The line our emails ask customers to reply above (REPLY_MARKER in app/utils/mailer.server.ts).
// Line by line, so no pattern ever runs over a whole megabyte at once.
function textAboveMarker(text) {
  let offset = 0;
  for (const line of text.split("\n")) {
    if (line.length < 500 && /reply above this line/i.test(line)) return text.slice(0, offset);
    offset += line.length + 1;
  }
  return null;
}

function htmlToText(html) {
  return convert(html, {
    wordwrap: false,
    // Nesting past this depth or breadth is cut rather than walked (150,000 nested divs).
    limits: { maxDepth: 64, maxChildNodes: 5_000, ellipsis: " …" },
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
    ],
  }).trim();
}

function visibleReplyText(full) {
  const base = (textAboveMarker(full) ?? full)
    .slice(0, QUOTE_INPUT_LIMIT)
    // Long runs of blanks carry no words and are what makes the parser's patterns slow.
    .replace(/[ \t\u00a0]{64,}/g, " ");
  const visible = new EmailReplyParser().read(base).getVisibleText().trim();
  return visible || base.trim() || full.trim();
}

/**
 * @param {{ text?: string, html?: string, stripped?: string }} body
 * @returns {{ text: string, visibleText: string }} the whole text and the new part of the reply
 */
export default function cleanEmailBody({ text, html, stripped }) {
  const whole = text?.trim() ? text : html?.trim() ? htmlToText(html) : "";
  const fullText = whole.replace(/\r\n?/g, "\n").trim();
  const reply = stripped?.trim() ? stripped.replace(/\r\n?/g, "\n") : fullText;
  return { text: fullText, visibleText: fullText ? visibleReplyText(reply) : "" };
}

// The text a support thread shows for an inbound email: its new text, without the quoted
// history mail clients put under a reply. Runs in a worker thread (app/workers/), never on
// the server's event loop: the libraries below can take seconds on hostile input.
//
// - HTML structure first, with planer (a port of Mailgun's talon): Gmail's `gmail_quote`,
//   Outlook's `divRplyFwdMsg`, `OLK_SRC_BODY_SECTION` and border-top splitters, `<hr>`,
//   `<blockquote type="cite">` and "From:" blocks (docs/decisions/018-reply-extraction.md).
// - Then the text, line by line: attribution lines and header blocks in the languages our
//   customers write in (LOCALE_* below; the libraries know English and a few European
//   languages only), and email-reply-parser for "> " quotes and signatures.
import EmailReplyParser from "email-reply-parser";
import { convert } from "html-to-text";
import { JSDOM } from "jsdom";
import planer from "planer";
import { nestsDeeperThan, stripTags } from "./html-scan";

/** At most this much text goes to the quotation parser: the new text of a reply is at its top. */
const QUOTE_INPUT_LIMIT = 32 * 1024;
/** Larger HTML is not given to the DOM parser for quotation cutting; its text is used instead. */
const HTML_QUOTE_LIMIT = 512 * 1024;
/** At most this much HTML is converted to text: a real email's HTML is far smaller. */
const HTML_CONVERT_LIMIT = 512 * 1024;
/** Lines longer than this are never attribution lines, and no pattern runs over them. */
const LINE_LIMIT = 400;

export type CleanedBody = { text: string; visibleText: string };

// The line our emails ask customers to reply above (REPLY_MARKER in app/utils/mailer.server.ts).
const REPLY_MARKER = /reply above this line/i;

// "<date/time> ... Name <address>:" with no verb, as Gmail writes it in Russian and other
// languages ("пт, 3 мар. 2023 г. в 10:00, Name <x@y>:"), Mail.ru ("Пятница, 3 марта 2023,
// 10:00 +03:00 от Name <x@y>:") and Yandex ("03.03.2023, 10:00, "Name" <x@y>:").
const LOCALE_ATTRIBUTION = /\d{1,2}:\d{2}.*<[^<>\s]+@[^<>\s]+>\)?\s*:\s*$/;

// "On ... wrote:" in more languages than the quotation library knows.
const LOCALE_WROTE =
  /^\s*>?\s*(?:On|Le|El|Il|Em|Am|Op|Den|W dniu|Dnia|Dne|Dana|V|В|У|На|Στις|Pada|Vào|På|Kl\.|Dňa|Tanggal)\s.{0,300}(?:wrote|a écrit|escribió|escreveu|ha scritto|scrisse|schrieb|schreef|skrev|napisał|napsal|napisao|пишет|написал|написала|написав|έγραψε|kirjoitti|írta|yazdı|menulis|đã viết|kirjutas|rašė|rakstīja|wrote)\s*:?\s*$/i;

// Localized "-----Original Message-----" separators.
const LOCALE_ORIGINAL =
  /^\s*-{2,}\s*(?:Original Message|Исходное сообщение|Mensaje original|Message d'origine|Ursprüngliche Nachricht|Messaggio originale|Mensagem original|Oorspronkelijk bericht|Původní zpráva|Oryginalna wiadomość|Оригінальне повідомлення|Opprinnelig melding|Ursprungligt meddelande|Alkuperäinen viesti)\s*-{2,}\s*$/i;

// An Outlook-style header block: a "From:" label and, within the next lines, a date, "to"
// or subject label, in any of these languages.
const FROM_LABEL =
  /^\s*\*?(?:From|От|Від|Von|De|Da|Van|Fra|Från|Od|Kimden|Lähettäjä|Feladó|Από|Expéditeur|Remitente|发件人|寄件者|差出人|보낸 사람)\s*\*?\s*:/i;
const HEADER_LABEL =
  /^\s*\*?(?:Sent|Date|To|Subject|Отправлено|Дата|Кому|Тема|Надіслано|Кому|Gesendet|Datum|An|Betreff|Envoyé|Date|À|Objet|Enviado|Fecha|Para|Asunto|Inviato|Data|A|Oggetto|Verzonden|Aan|Onderwerp|Sendt|Til|Emne|Skickat|Till|Ämne|Wysłano|Do|Temat|Odesláno|Komu|Předmět|Gönderildi|Kime|Konu|Lähetetty|Vastaanottaja|Aihe|发送时间|收件人|主题|送信日時|宛先|件名)\s*\*?\s*:/i;

/** The index of the first line that starts quoted history by our locale rules, or -1. */
function attributionLine(lines: string[]): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length > LINE_LIMIT) continue;
    if (REPLY_MARKER.test(line) || LOCALE_ORIGINAL.test(line)) return i;
    if (LOCALE_WROTE.test(line) || LOCALE_ATTRIBUTION.test(line)) return i;
    if (FROM_LABEL.test(line)) {
      const next = lines.slice(i + 1, i + 4).filter((l) => l.trim() !== "" && l.length <= LINE_LIMIT);
      if (next.some((l) => HEADER_LABEL.test(l))) return i;
    }
  }
  return -1;
}

/** The text above the first attribution line or header block, then the library's cut. */
export function visibleReplyText(full: string): string {
  const lines = full
    .slice(0, QUOTE_INPUT_LIMIT)
    // Long runs of blanks carry no words and are what makes the library's patterns slow.
    .replace(/[ \t\u00a0]{64,}/g, " ")
    .split("\n");
  const cut = attributionLine(lines);
  const above = (cut === -1 ? lines : lines.slice(0, cut)).join("\n");
  // Gmail wraps a long attribution line: "On ... Name <x@y>" then "wrote:" alone.
  const visible = new EmailReplyParser().read(above).getVisibleText().trim();
  return visible || above.trim();
}

/** Nesting deeper than this is not converted but stripped: real emails nest a few dozen levels. */
const HTML_DEPTH_LIMIT = 400;

export function htmlToText(whole: string): string {
  const html = whole.slice(0, HTML_CONVERT_LIMIT);
  // html-to-text matches its selectors against every node's ancestors: time grows with the
  // square of the depth, and the tree is held in memory throughout.
  if (nestsDeeperThan(html, HTML_DEPTH_LIMIT)) return stripTags(html, HTML_CONVERT_LIMIT);
  return convert(html, {
    wordwrap: false,
    // Nesting past this depth or breadth is cut rather than walked (150,000 nested divs).
    limits: { maxDepth: 64, maxChildNodes: 5_000, ellipsis: " …" },
    selectors: [
      { selector: "img", format: "skip" },
      { selector: "a", options: { hideLinkHrefIfSameAsText: true } },
      { selector: "hr", format: "skip" },
      // Quoted history is already cut by planer; what is left of a blockquote is content.
      { selector: "blockquote", format: "block" },
    ],
  }).trim();
}

// One DOM for planer per worker thread: making a window costs more than parsing a reply.
let document: Document | undefined;

/** The reply part of an HTML body, by its structure (planer), or null when it has none. */
function replyHtml(html: string): string | null {
  if (html.length > HTML_QUOTE_LIMIT || nestsDeeperThan(html, HTML_DEPTH_LIMIT)) return null;
  document ??= new JSDOM("").window.document;
  const reply = planer.extractFrom(html, "text/html", document);
  return typeof reply === "string" ? reply : null;
}

const normalizeNewlines = (value: string) => value.replace(/\r\n?/g, "\n");

/**
 * The whole text (HTML converted when there is no text part) and the new text of the
 * reply: a provider's own stripped reply when it gives one, else the shortest of what the
 * HTML structure and the text rules leave (each cuts only what it knows to be quoted, so
 * the shortest is the one that found where the quoted history starts).
 */
export function cleanEmailBody({
  text,
  html,
  stripped,
}: {
  text?: string;
  html?: string;
  stripped?: string;
}): CleanedBody {
  const htmlText = html?.trim() ? htmlToText(html) : "";
  const fullText = normalizeNewlines(text?.trim() ? text : htmlText).trim();
  if (!fullText) return { text: "", visibleText: "" };
  if (stripped?.trim())
    return {
      text: fullText,
      visibleText: visibleReplyText(normalizeNewlines(stripped)) || fullText.slice(0, QUOTE_INPUT_LIMIT),
    };
  const candidates = [visibleReplyText(fullText)];
  if (htmlText) {
    candidates.push(visibleReplyText(normalizeNewlines(htmlText)));
    const reply = replyHtml(html!);
    if (reply !== null) candidates.push(visibleReplyText(normalizeNewlines(htmlToText(reply))));
  }
  const found = candidates.filter((candidate) => candidate.trim() !== "").sort((a, b) => a.length - b.length);
  return { text: fullText, visibleText: found[0] ?? fullText.slice(0, QUOTE_INPUT_LIMIT) };
}

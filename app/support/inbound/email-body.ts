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

// The line our emails ask customers to reply above (REPLY_MARKER in app/notifications/mailer.server.ts).
const REPLY_MARKER = /reply above this line/i;

// "<date/time> ... Name <address>:" with no verb, as Gmail writes it in Russian and other
// languages ("пт, 3 мар. 2023 г. в 10:00, Name <x@y>:"), Mail.ru ("Пятница, 3 марта 2023,
// 10:00 +03:00 от Name <x@y>:") and Yandex ("03.03.2023, 10:00, "Name" <x@y>:").
const LOCALE_ATTRIBUTION = /\d{1,2}:\d{2}.*<[^<>\s]+@[^<>\s]+>\)?\s*:\s*$/;

// "On ... wrote:" in more languages than the quotation library knows.
const LOCALE_WROTE =
  /^\s*>?\s*(?:On|Le|El|Il|Em|Am|Op|Den|W dniu|Dnia|Dne|Dana|V|В|У|На|Στις|Pada|Vào|På|Kl\.|Dňa|Tanggal)\s.{0,300}(?:wrote|a écrit|escribió|escreveu|ha scritto|scrisse|schrieb|schreef|skrev|napisał|napsal|napisao|пишет|написал|написала|написав|έγραψε|kirjoitti|írta|yazdı|menulis|đã viết|kirjutas|rašė|rakstīja|wrote)\s*:?\s*$/i;

// "<date> <time> <anything> <verb>:" with the verb last, as Android's mail app writes it
// ("02.04.2012 14:20 пользователь "Name" <x@y> написал:"), often wrapped over two lines.
const DATED_WROTE =
  /\d{1,2}:\d{2}.{0,300}\s(?:wrote|a écrit|escribió|escreveu|ha scritto|schrieb|schreef|skrev|napisał|napsal|пишет|написал|написала|написав|έγραψε|kirjoitti|yazdı)\s*:\s*$/i;

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
    if (LOCALE_WROTE.test(line) || LOCALE_ATTRIBUTION.test(line) || DATED_WROTE.test(line)) return i;
    // An attribution line wrapped in two: the date and time on the first, the end on the next.
    if (i + 1 < lines.length && /\d{1,2}:\d{2}/.test(line) && !/^\s*>/.test(lines[i + 1])) {
      const joined = `${line} ${lines[i + 1]}`;
      if (joined.length <= LINE_LIMIT && (LOCALE_ATTRIBUTION.test(joined) || DATED_WROTE.test(joined))) return i;
    }
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
  let cut = attributionLine(lines);
  // Outlook draws a rule above its header block.
  while (cut > 0 && /^\s*[_-]{8,}\s*$/.test(lines[cut - 1])) cut--;
  let above = (cut === -1 ? lines : lines.slice(0, cut)).join("\n");
  // Written below the quote (Thunderbird's default): the attribution comes first, then the
  // quoted lines, then the reply. The reply is what is not quoted.
  if (cut !== -1 && above.trim() === "") {
    above = lines
      .slice(cut + 1)
      .filter((line) => !/^\s*>/.test(line))
      .join("\n");
  }
  // Gmail wraps a long attribution line: "On ... Name <x@y>" then "wrote:" alone. The
  // library hides signatures too; they are the customer's own words ("Sent from my iPhone",
  // a name and phone number), so only its quoted fragments are left out (decision 038).
  const visible = new EmailReplyParser()
    .read(above)
    .getFragments()
    .filter((fragment) => !fragment.isQuoted() && fragment.getContent().trim() !== "")
    .map((fragment) => fragment.getContent())
    .join("\n")
    .trim();
  // Blank runs (html-to-text's paragraphs, Apple Mail's empty divs) shown as one blank line.
  return (visible || above.trim()).replace(/\n[ \t]*(?:\n[ \t]*){2,}/g, "\n\n");
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

const squashedLength = (value: string) => value.replace(/\s+/g, " ").trim().length;

/**
 * The whole text (HTML converted when there is no text part) and the new text of the
 * reply: a provider's own stripped reply when it gives one, else the shortest of what the
 * text rules and the HTML structure leave (each cuts only what it knows to be quoted, so
 * the shortest is the one that found where the quoted history starts). Beside a text part,
 * the HTML's reading counts only where it cut something: an HTML part that is merely
 * shorter (Apple Mail's split across attachments, a provider's truncated copy) is not a
 * better reading of the email, only a smaller piece of it (decision 038).
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
  const hasTextPart = Boolean(text?.trim());
  const fullText = normalizeNewlines(hasTextPart ? text! : htmlText).trim();
  if (!fullText) return { text: "", visibleText: "" };
  if (stripped?.trim())
    return {
      text: fullText,
      visibleText: visibleReplyText(normalizeNewlines(stripped)) || fullText.slice(0, QUOTE_INPUT_LIMIT),
    };
  const fromText = visibleReplyText(fullText);
  const candidates = [fromText];
  if (htmlText) {
    const fromHtml = [visibleReplyText(normalizeNewlines(htmlText))];
    const reply = replyHtml(html!);
    if (reply !== null) fromHtml.push(visibleReplyText(normalizeNewlines(htmlToText(reply))));
    candidates.push(...(hasTextPart ? fromHtml.filter((cut) => htmlFoundMore(cut, htmlText, fromText)) : fromHtml));
  }
  const found = candidates.filter((candidate) => candidate.trim() !== "").sort((a, b) => a.length - b.length);
  return { text: fullText, visibleText: found[0] ?? fullText.slice(0, QUOTE_INPUT_LIMIT) };
}

/**
 * Beside a text part, whether the HTML's reading found quoted history the text rules did
 * not: it must have cut something from the HTML, and leave clearly less than the text
 * part's reading (a few characters are only formatting: "[link]" against "(link)").
 */
function htmlFoundMore(cut: string, htmlText: string, fromText: string): boolean {
  const length = squashedLength(cut);
  return length < squashedLength(htmlText) && length < squashedLength(fromText) * 0.9;
}

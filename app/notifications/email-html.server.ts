// The HTML part of every email we send, made from its text part (which stays exactly as
// it was) and the brand: one inline-styled table layout, as Gmail, Outlook and Apple Mail
// all render it, with no external assets (the logo, when there is one, travels with the
// email as a cid: attachment). Every character of the text is escaped; the only markup
// made from it is line breaks, and links for addresses on this service's own origin
// (docs/decisions/040-brand-logo-and-html-email.md).
import { REPLY_MARKER, type InlineImage } from "~/notifications/mailer.server";
import { env } from "~/utils/env.server";
import { escapeHtml } from "~/utils/html";
import { getBrand, getBrandLogo } from "../brand/brand.server";

export type EmailBrand = { name: string; accentColor: string; logoCid: string | null };

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const TEXT = `${FONT}font-size:15px;line-height:1.5;color:#1f2328;`;
const MUTED = `${FONT}font-size:12px;line-height:1.5;color:#59636e;`;
const URL_PATTERN = /https?:\/\/[^\s<>"]+/g;
/** "Open it: https://..." — a line of ours that names what its link does. */
const LABELLED_LINK = /^([^\s:][^:]{0,60}): (https?:\/\/\S+)$/;

/** The address when it is on our own origin (the links we put in our emails), else null. */
function ownUrl(candidate: string, origin: string): string | null {
  try {
    const url = new URL(candidate);
    return url.origin === origin ? url.href : null;
  } catch {
    return null;
  }
}

/** One line: escaped, its leading spaces kept, links to our own origin made links. */
function lineHtml(line: string, origin: string, accent: string): string {
  const indent = line.length - line.trimStart().length;
  let html = "";
  let last = 0;
  for (const match of line.matchAll(URL_PATTERN)) {
    const url = ownUrl(match[0], origin);
    if (!url) continue;
    html += escapeHtml(line.slice(last, match.index));
    html += `<a href="${escapeHtml(url)}" style="color:${accent};">${escapeHtml(match[0])}</a>`;
    last = match.index + match[0].length;
  }
  html += escapeHtml(line.slice(last));
  return "&nbsp;".repeat(indent) + html.trimStart();
}

/** A link as a button that renders as one in Outlook too (a table cell with the colour). */
function button(label: string, url: string, accent: string): string {
  return (
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:8px 0;"><tr>` +
    `<td style="background:${accent};border-radius:4px;">` +
    `<a href="${escapeHtml(url)}" style="${FONT}display:inline-block;padding:10px 18px;font-size:15px;font-weight:bold;color:#ffffff;text-decoration:none;">${escapeHtml(label)}</a>` +
    `</td></tr></table>`
  );
}

/** The body's lines, a paragraph per run of lines, an own labelled or bare link as a button. */
function bodyHtml(lines: string[], origin: string, accent: string): string {
  const blocks: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push(`<p style="${TEXT}margin:0 0 16px;">${paragraph.join("<br>")}</p>`);
    paragraph = [];
  };
  for (const line of lines) {
    const labelled = LABELLED_LINK.exec(line);
    // A link on a line of its own (not indented under a lead of a digest) reads as a button.
    const url = labelled ? ownUrl(labelled[2], origin) : line === line.trim() ? ownUrl(line, origin) : null;
    if (url) {
      flush();
      blocks.push(button(labelled ? labelled[1] : "Open the link", url, accent));
      if (!labelled) blocks.push(`<p style="${MUTED}margin:0 0 16px;">${lineHtml(line, origin, accent)}</p>`);
    } else if (line.trim() === "") flush();
    else paragraph.push(lineHtml(line, origin, accent));
  }
  flush();
  return blocks.join("\n");
}

function headerHtml(brand: EmailBrand): string {
  if (!brand.name && !brand.logoCid) return "";
  const logo = brand.logoCid
    ? `<img src="cid:${escapeHtml(brand.logoCid)}" alt="${brand.name ? "" : "Logo"}" height="40" style="display:block;height:40px;width:auto;max-width:200px;border:0;">`
    : "";
  const name = brand.name
    ? `<span style="${FONT}font-size:18px;font-weight:bold;color:#1f2328;">${escapeHtml(brand.name)}</span>`
    : "";
  const cells = [logo, name]
    .filter(Boolean)
    .map((cell, i) => `<td style="vertical-align:middle;${i > 0 ? "padding-left:12px;" : ""}">${cell}</td>`)
    .join("");
  return `<tr><td style="padding:20px 24px;border-bottom:1px solid #e5e7eb;"><table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>${cells}</tr></table></td></tr>`;
}

/**
 * The HTML of an email whose text part is `text`: the reply marker (when it leads) kept
 * on top so replies written in HTML are cut at it too, the body, and what follows the
 * "-- " signature line as a muted footer.
 */
export function renderEmailHtml(input: { subject: string; text: string; brand: EmailBrand; appUrl: string }): string {
  const { brand } = input;
  const origin = new URL(input.appUrl).origin;
  const lines = input.text.replace(/\r\n?/g, "\n").split("\n");
  const marker = lines[0] === REPLY_MARKER ? lines.shift() : undefined;
  const signature = lines.indexOf("-- ");
  const body = signature >= 0 ? lines.slice(0, signature) : lines;
  const footer = signature >= 0 ? lines.slice(signature + 1).filter((line) => line.trim()) : [];
  const rows = [
    headerHtml(brand),
    marker ? `<tr><td style="${MUTED}padding:12px 24px 0;">${escapeHtml(marker)}</td></tr>` : "",
    `<tr><td style="padding:24px 24px 8px;">${bodyHtml(body, origin, brand.accentColor)}</td></tr>`,
    footer.length > 0
      ? `<tr><td style="${MUTED}padding:12px 24px 20px;border-top:1px solid #e5e7eb;">${footer.map((line) => lineHtml(line, origin, brand.accentColor)).join("<br>")}</td></tr>`
      : "",
  ];
  return [
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(input.subject)}</title></head>`,
    `<body style="margin:0;padding:0;background:#f4f5f7;">`,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f5f7;"><tr><td align="center" style="padding:24px 12px;">`,
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background:#ffffff;border-top:4px solid ${brand.accentColor};">`,
    ...rows.filter(Boolean),
    `</table></td></tr></table></body></html>`,
  ].join("\n");
}

/**
 * What the outbox adds to an email as it sends it: the HTML part in today's brand, the
 * logo it shows, and the From name (SUPPORT_FROM_NAME, else the brand's name, else none).
 */
export async function brandedParts(email: { subject: string; text: string }): Promise<{
  html: string;
  inlineImages: InlineImage[];
  fromName: string | undefined;
}> {
  const [brand, logo] = await Promise.all([getBrand(), getBrandLogo()]);
  const logoCid = logo ? `logo.${logo.hash}@brand` : null;
  return {
    html: renderEmailHtml({ ...email, brand: { ...brand, logoCid }, appUrl: env.APP_URL }),
    inlineImages: logo
      ? [{ cid: logoCid!, content: logo.bytes, contentType: logo.type, filename: `logo.${logo.type.split("/")[1]}` }]
      : [],
    fromName: env.SUPPORT_FROM_NAME ?? (brand.name || undefined),
  };
}

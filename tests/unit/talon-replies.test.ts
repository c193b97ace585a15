// Replies written in real mail clients (Mailgun's talon corpus, ../shared/fixtures/talon,
// read in place): the text a support thread shows must be what talon says a reader
// should see. For standard_replies/X.eml that is X_reply_text where it exists, otherwise
// "Hello"; for every html_replies/*.html, "Hi. I am fine." then "Thanks," and "Alex".
import fs from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { describe, expect, it } from "vitest";
import { cleanEmailBody } from "~/support/inbound/email-body";

const talon = path.resolve(import.meta.dirname, "..", "..", "..", "shared", "fixtures", "talon");
const standard = path.join(talon, "standard_replies");
const htmlReplies = path.join(talon, "html_replies");

/** Lines without trailing blanks, the whole trimmed: talon's files end lines with spaces. */
const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();

/**
 * The text and HTML parts of an .eml as a provider posts them. The text part is read as
 * written, as talon reads it: mailparser's format=flowed reflow would join Thunderbird's
 * quoted "> Hi " with the "Hello" under it (RFC 3676 §4.5 forbids joining lines of two
 * quote depths), so the variant read here drops the format parameter.
 */
async function partsOf(file: string): Promise<{ text?: string; html?: string }> {
  const source = fs.readFileSync(file, "latin1").replace(/;\s*format="?flowed"?/gi, "");
  const mail = await simpleParser(Buffer.from(source, "latin1"));
  return { text: mail.text, html: mail.html || undefined };
}

const emls = fs.readdirSync(standard).filter((name) => name.endsWith(".eml"));
const htmls = fs.readdirSync(htmlReplies).filter((name) => name.endsWith(".html"));

function expectedFor(eml: string): string {
  const replyText = path.join(standard, eml.replace(/\.eml$/, "_reply_text"));
  return fs.existsSync(replyText) ? lines(fs.readFileSync(replyText, "utf8")) : "Hello";
}

describe("talon's replies from real mail clients", () => {
  it("holds the 21 replies the fixtures README describes", () => {
    expect(emls.length + htmls.length).toBe(21);
  });

  it.each(emls)("standard_replies/%s shows the reply text, with the text and HTML parts as posted", async (eml) => {
    const { visibleText, text } = cleanEmailBody(await partsOf(path.join(standard, eml)));
    expect(lines(visibleText)).toBe(expectedFor(eml));
    // The quoted history is still kept in the whole text.
    expect(text.length).toBeGreaterThan(visibleText.length);
  });

  it.each(emls)("standard_replies/%s shows the reply text from its text part alone", async (eml) => {
    const { text } = await partsOf(path.join(standard, eml));
    expect(lines(cleanEmailBody({ text }).visibleText)).toBe(expectedFor(eml));
  });

  it.each(htmls)("html_replies/%s shows the reply, its closing and the name", (name) => {
    const { visibleText } = cleanEmailBody({ html: fs.readFileSync(path.join(htmlReplies, name), "utf8") });
    expect(
      visibleText
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean),
    ).toEqual(["Hi. I am fine.", "Thanks,", "Alex"]);
  });
});

// The reply corpus (tests/fixtures/reply-corpus.ts): for each major mail client, the text
// the thread shows must be the customer's new text and nothing of the quoted history.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEmailBody } from "~/support/inbound/email-body";
import { corpus } from "../fixtures/reply-corpus";

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

describe("reply extraction corpus", () => {
  it.each(corpus.map((reply) => [reply.client, reply] as const))("%s", (_client, reply) => {
    const { text, visibleText } = cleanEmailBody({ text: reply.text, html: reply.html });
    expect(visibleText).toBe(reply.expected);
    // The whole email is kept beside it, quoted history included.
    expect(text.length).toBeGreaterThan(visibleText.length);
  });

  it("covers every client the support desk hears from", () => {
    const clients = corpus.map((reply) => reply.client).join("\n");
    for (const client of [
      "Gmail web",
      "Gmail Android",
      "Outlook 2003",
      "Outlook 2007",
      "Outlook 2016-365",
      "Outlook on the web",
      "Apple Mail",
      "iOS Mail",
      "Yahoo",
      "AOL",
      "Thunderbird",
      "Windows Mail",
      "Yandex",
      "Mail.ru",
    ]) {
      expect(clients).toContain(client);
    }
  });

  it("cuts planer's own Office 365 example (as it ships in node_modules/planer) after the new text", () => {
    const html = fs.readFileSync(path.resolve("node_modules/planer/test/examples/html/office-365.html"), "utf8");
    const { visibleText } = cleanEmailBody({ html });
    // "Cheers, Mr. Cat" is the signature: the customer's own words, kept (decision 038).
    expect(squash(visibleText)).toBe(
      "Hey Ms. Dolphin -- It has been so great to chat with you these past few days. I really hope that you're doing well! Great. Bye! Cheers, Mr. Cat",
    );
  });

  it("keeps a reply that quotes nothing as it is", () => {
    for (const text of [
      "Hi,\nOn Monday I will send the invoice.\nFrom: the accounts team",
      'Hello,\n\nI still cannot log in. The page says "From: field missing".\n\nJane',
    ]) {
      expect(cleanEmailBody({ text }).visibleText).toBe(text);
    }
  });
});

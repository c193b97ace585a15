// The HTTP posts that SendGrid, Mailgun and Postmark really sent (../shared/fixtures/providers,
// each folder's SOURCE says where from), read in place and never edited: a variant a test
// needs (the ticket reference appended to the subject, a failing verdict, the ticket's
// reply address as recipient) is derived here, in code, from the bytes as captured.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * ../shared/fixtures beside the repository; from a git worktree elsewhere, the one beside
 * the main checkout (the parent of the common .git directory).
 */
function fixturesDir(): string {
  const beside = path.resolve(repoRoot, "..", "shared", "fixtures");
  if (fs.existsSync(beside)) return beside;
  const commonGit = execFileSync("git", ["rev-parse", "--git-common-dir"], { cwd: repoRoot, encoding: "utf8" }).trim();
  return path.resolve(repoRoot, commonGit, "..", "..", "shared", "fixtures");
}

export const sharedFixtures = fixturesDir();
export const providersDir = path.join(sharedFixtures, "providers");

export type Sample = { contentType: string; body: Buffer };

/**
 * A capture "HTTP/1.1 200 OK", headers, a blank line, then the body as sent; or, for a
 * file that is only a body, the content type its sender used.
 */
export function readSample(file: string, contentType?: string): Sample {
  const bytes = fs.readFileSync(path.join(providersDir, file));
  if (contentType) return { contentType, body: bytes };
  const text = bytes.toString("latin1");
  const blank = /\r?\n\r?\n/.exec(text)!;
  const head = text.slice(0, blank.index);
  const type = /^content-type:\s*(.+?)\s*$/im.exec(head)![1];
  return { contentType: type, body: bytes.subarray(Buffer.byteLength(head, "latin1") + blank[0].length) };
}

// Bytes as latin1 text: every byte one character, so editing the text keeps the others as they were.
const edit = (sample: Sample, change: (text: string) => string): Sample => ({
  ...sample,
  body: Buffer.from(change(sample.body.toString("latin1")), "latin1"),
});

const jsonString = (value: string) => JSON.stringify(value).slice(1, -1);

/** A multipart form field's value changed, whichever line ending the post uses. */
function multipartField(text: string, name: string, change: (value: string) => string): string {
  const field = new RegExp(`(name="${name}"\\r?\\n\\r?\\n)([^\\r\\n]*)`, "g");
  return text.replace(field, (_all, before: string, value: string) => before + change(value));
}

/** Mailgun's message-headers JSON entry of a header (as in `["Subject", "Test"]`), changed. */
function messageHeader(text: string, name: string, change: (value: string) => string): string {
  const entry = new RegExp(`(\\["${name}", ")((?:[^"\\\\]|\\\\.)*)(")`, "g");
  return text.replace(entry, (_all, before: string, value: string, after: string) => before + change(value) + after);
}

/** The sample with every copy of one field changed: SendGrid's and Mailgun's forms, Postmark's JSON. */
function changeEverywhere(sample: Sample, names: string[], change: (value: string) => string): Sample {
  if (sample.contentType.startsWith("application/json")) {
    const json = JSON.parse(sample.body.toString("utf8")) as Record<string, unknown>;
    for (const name of names) if (typeof json[name] === "string") json[name] = change(json[name] as string);
    return { ...sample, body: Buffer.from(JSON.stringify(json)) };
  }
  if (sample.contentType.startsWith("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(sample.body.toString("latin1"));
    const entries = [...form.entries()].map(([key, value]): [string, string] => {
      if (names.includes(key)) return [key, change(value)];
      if (key !== "message-headers") return [key, value];
      const headers = JSON.parse(value) as Array<[string, string]>;
      return [key, JSON.stringify(headers.map(([h, v]) => [h, names.includes(h) ? change(v) : v]))];
    });
    return { ...sample, body: Buffer.from(new URLSearchParams(entries).toString()) };
  }
  return edit(sample, (text) => {
    let out = text;
    for (const name of names) {
      out = multipartField(out, name, change);
      out = messageHeader(out, name, (value) => jsonString(change(JSON.parse(`"${value}"`) as string)));
    }
    return out;
  });
}

/** As the bar posts each sample: the ticket reference appended to every copy of the subject. */
export function withReference(sample: Sample, reference: string): Sample {
  const append = (subject: string) => `${subject} [#${reference}]`.trim();
  const withFields = changeEverywhere(sample, ["subject", "Subject"], append);
  // SendGrid's raw header block carries the Subject line too.
  return edit(withFields, (text) =>
    text.replace(
      /(name="headers"[\s\S]*?\nSubject: )([^\r\n]*)/,
      (_all, before: string, value: string) => before + append(value),
    ),
  );
}

/** SendGrid's SPF field, Mailgun's X-Mailgun-Spf, Postmark's Received-SPF: pass made fail. */
export function withSpfFailing(sample: Sample): Sample {
  const fail = (value: string) => value.replace(/^pass\b/i, (word) => (word === "Pass" ? "Fail" : "fail"));
  if (!sample.contentType.startsWith("application/json"))
    return changeEverywhere(sample, ["SPF", "X-Mailgun-Spf"], fail);
  const json = JSON.parse(sample.body.toString("utf8")) as { Headers: Array<{ Name: string; Value: string }> };
  for (const header of json.Headers) if (header.Name === "Received-SPF") header.Value = fail(header.Value);
  return { ...sample, body: Buffer.from(JSON.stringify(json)) };
}

/** The recipient fields made the ticket's reply address (the subject left as captured). */
export function toReplyAddress(sample: Sample, address: string): Sample {
  const recipient = () => address;
  const changed = changeEverywhere(sample, ["to", "To", "recipient", "OriginalRecipient"], recipient);
  // SendGrid's envelope names the recipients as JSON.
  return edit(changed, (text) =>
    multipartField(text, "envelope", (value) => {
      const envelope = JSON.parse(value) as { to: string[] };
      return JSON.stringify({ ...envelope, to: [address] });
    }),
  );
}

/** The multipart post with bare LF line endings, as SendGrid's sample sender writes it. */
export const withCrlf = (sample: Sample): Sample => edit(sample, (text) => text.replace(/\r?\n/g, "\r\n"));

// The IMAP intake (decision 070) against a real Dovecot started for this file: mail that
// arrived while the service was down is filed once at start, nothing is filed twice after a
// SIGKILL mid-batch or a UIDVALIDITY reset, a message over the limit and an unreadable one
// go to the failure folder, a 20 MB message is filed, and 1,000 messages are backfilled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { startDovecot, type Dovecot } from "../support/dovecot";
import { apiClient, loginAsStaff, postForm, staffSession } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { bearer, newTicket } from "../support/support-desk";
import type { ImapFlow } from "imapflow";

const FOLDER = "Support";
const AUTHSERV = "mx.example.test";

let dovecot: Dovecot;
let imap: ImapFlow;
let server: TestServer | null = null;
let ticket: { reference: string; email: string; subject: string };

const intakeEnv = () => ({
  IMAP_URL: dovecot.url(FOLDER),
  NODE_EXTRA_CA_CERTS: dovecot.caFile,
  IMAP_POLL_SECONDS: "30",
  IMAP_LEASE_SECONDS: "3",
  IMAP_BACKFILL_DAYS: "7",
  INBOUND_AUTHSERV_ID: AUTHSERV,
  SUPPORT_RATE_LIMIT_PER_HOUR: "0",
});

beforeAll(async () => {
  dovecot = await startDovecot();
  imap = await dovecot.client();
  await imap.mailboxCreate(FOLDER);
  // A ticket to reply to, opened before any intake runs.
  const plain = await startServer({ SUPPORT_RATE_LIMIT_PER_HOUR: "0" });
  ticket = await newTicket(apiClient(plain.url));
  await plain.stop();
}, 60_000);
afterAll(async () => {
  await server?.kill();
  await imap?.logout().catch(() => {});
  await dovecot?.stop();
});

/** A reply to the ticket as a mail client writes it; `id` makes its Message-ID. */
function reply(id: string, { body = `Reply ${id}.`, headers = "", from = ticket.email } = {}): string {
  return [
    ...(headers ? [headers] : []),
    `From: Customer <${from}>`,
    `To: support@example.com`,
    `Subject: Re: ${ticket.subject} [#${ticket.reference}]`,
    `Message-ID: <${id}@client.example>`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    body,
    "",
  ].join("\r\n");
}

async function append(message: string | Buffer, date?: Date) {
  await imap.append(FOLDER, message, [], date);
}

async function folderCount(folder: string): Promise<number> {
  const status = await imap.status(folder, { messages: true });
  return status ? (status.messages ?? 0) : 0;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!ok(value)) {
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}: ${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? String(v) : v))}\n${server?.output().slice(-3000)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

const mailboxRow = () => db.imapMailbox.findFirst();

/** How many times each of these Message-IDs is in the ticket's thread. */
async function filedTimes(ids: string[]): Promise<number[]> {
  const rows = await db.ticketMessage.findMany({
    where: { emailMessageId: { in: ids.map((id) => `<${id}@client.example>`) } },
    select: { emailMessageId: true },
  });
  return ids.map((id) => rows.filter((row) => row.emailMessageId === `<${id}@client.example>`).length);
}

async function thread() {
  const res = await apiClient(server!.url)("GET", `/api/support-requests/${ticket.reference}`, undefined, bearer());
  expect(res.status).toBe(200);
  return res.body.ticket.messages as Array<{
    body: string;
    unverifiedSender: boolean;
    notKept: string[];
    attachments: unknown[];
  }>;
}

describe("the IMAP intake", () => {
  it("files once, after it starts, what arrived while it was down; refuses what it cannot file, into Failed", async () => {
    // Older than the backfill (and, as in a real mailbox, older than what came after): left where it is.
    await append(reply("too-old"), new Date(Date.now() - 30 * 24 * 3600 * 1000));
    await append(reply("down-1"));
    await append(
      reply("down-2", {
        body: "Signed by the receiving server.",
        headers: `Authentication-Results: ${AUTHSERV}; dmarc=pass header.from=example.com`,
      }),
    );
    await append(
      reply("down-3", {
        body: "Forged verdict.",
        headers: "Authentication-Results: mx.attacker.test; dmarc=pass header.from=example.com",
      }),
    );
    // No sender at all, and not MIME: not an email.
    await append("this is not an email\r\nat all\r\n");
    // Names no ticket: refused as the webhook refuses it (422), with its reason.
    await append(reply("no-ticket").replace(/Subject: .*/, "Subject: A new question"));

    server = await startServer(intakeEnv());
    const row = await until(
      "the backlog filed",
      mailboxRow,
      (r) => (r?.filedCount ?? 0) >= 3 && (r?.failedCount ?? 0) >= 2,
    );
    expect(row).toMatchObject({ filedCount: 3, failedCount: 2, state: "connected" });
    expect(await filedTimes(["down-1", "down-2", "down-3", "too-old"])).toEqual([1, 1, 1, 0]);
    await until(
      "the folders",
      async () => [await folderCount(FOLDER), await folderCount("Processed"), await folderCount("Failed")],
      (c) => c.join() === "1,3,2",
    );

    // The same sender-trust rules as the webhook: only INBOUND_AUTHSERV_ID's verdict counts.
    const messages = await thread();
    expect(messages.find((m) => m.body.includes("Signed by"))?.unverifiedSender).toBe(false);
    expect(messages.find((m) => m.body.includes("Forged"))?.unverifiedSender).toBe(true);
    const failures = await db.imapFailure.findMany({ orderBy: { uid: "asc" } });
    expect(failures.map((f) => f.reason)).toEqual([
      expect.stringMatching(/^Could not be read: validation_failed/),
      expect.stringMatching(/^ticket_reference_missing/),
    ]);
    expect(failures[1].messageId).toBe("no-ticket@client.example");
  }, 120_000);

  it("files a message as it arrives (IDLE), long before the next poll", async () => {
    const started = Date.now();
    await append(reply("live-1"));
    await until(
      "the new message",
      () => filedTimes(["live-1"]),
      (t) => t[0] === 1,
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("files a 20 MB message (its attachment over the limit named as not kept) and fails one over 25 MB", async () => {
    const attachment = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64").replace(/.{76}/g, "$&\r\n");
    const withFile = (id: string, bytes: number) =>
      reply(id)
        .replace("Content-Type: text/plain; charset=utf-8", 'Content-Type: multipart/mixed; boundary="b"')
        .replace(
          `Reply ${id}.`,
          `--b\r\nContent-Type: text/plain\r\n\r\nBig one ${id}.\r\n--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="big.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${attachment(bytes)}\r\n--b--`,
        );
    const twenty = withFile("big-20", 14.8 * 1024 * 1024);
    expect(Buffer.byteLength(twenty)).toBeGreaterThan(20 * 1024 * 1024);
    await append(twenty);
    await append(withFile("big-26", 19.5 * 1024 * 1024));
    await until("the big ones", mailboxRow, (r) => (r?.failedCount ?? 0) >= 3 && (r?.filedCount ?? 0) >= 5, 60_000);
    const big = (await thread()).find((m) => m.body.includes("Big one big-20"))!;
    expect(big.notKept.join(" ")).toMatch(/big\.bin/);
    const tooBig = await db.imapFailure.findFirstOrThrow({ where: { messageId: "big-26@client.example" } });
    expect(tooBig.reason).toMatch(/^Too big/);
  }, 90_000);

  it("refiles nothing after a SIGKILL mid-batch, and files the rest", { timeout: 180_000 }, async () => {
    const ids = Array.from({ length: 80 }, (_, i) => `kill-${i}`);
    await server?.stop();
    server = null;
    await Promise.all(ids.map((id) => append(reply(id))));
    const before = (await mailboxRow())?.filedCount ?? 0;
    // What the folder held before (the message older than the backfill, when the first test ran).
    const left = (await folderCount(FOLDER)) - ids.length;
    server = await startServer(intakeEnv());
    await until("part of the batch", mailboxRow, (r) => (r?.filedCount ?? 0) - before >= 10, 60_000);
    await server.kill();
    const filedAtKill = (await mailboxRow())!.filedCount - before;
    expect(filedAtKill).toBeLessThan(ids.length);
    // The next instance takes the lease once the killed one's has run out.
    server = await startServer(intakeEnv());
    await until(
      "the whole batch",
      () => filedTimes(ids),
      (times) => times.every((t) => t >= 1),
    );
    expect(new Set(await filedTimes(ids))).toEqual(new Set([1]));
    await until(
      "the folder emptied",
      () => folderCount(FOLDER),
      (n) => n === left,
    );
  });

  it("refiles nothing after a UIDVALIDITY reset (the folder deleted and made again with the same messages)", async () => {
    const before = await mailboxRow();
    await server?.stop();
    server = null;
    // The same messages as before, into a new folder of the same name.
    const copies: Array<{ source: Buffer; internalDate?: Date | string }> = [];
    await imap.mailboxOpen("Processed");
    for await (const m of imap.fetch("1:*", { source: true, internalDate: true }))
      copies.push({ source: m.source!, internalDate: m.internalDate });
    await imap.mailboxClose();
    await imap.mailboxDelete(FOLDER);
    await imap.mailboxCreate(FOLDER);
    for (const copy of copies.slice(-40)) await append(copy.source);
    await append(reply("after-reset"));
    const status = await imap.status(FOLDER, { uidValidity: true });
    expect(status && status.uidValidity).not.toBe(before!.uidValidity);

    server = await startServer(intakeEnv());
    await until(
      "the reset read",
      () => folderCount(FOLDER),
      (n) => n === 0,
    );
    const after = (await mailboxRow())!;
    expect(after.filedCount).toBe(before!.filedCount + 1);
    expect(after.uidValidity).not.toBe(before!.uidValidity);
    expect(await filedTimes(["after-reset", "down-1", "kill-0", "kill-79"])).toEqual([1, 1, 1, 1]);
  }, 120_000);

  it("shows /settings/mail to owners and admins, and fetches at once on Fetch now", async () => {
    const cookie = await loginAsStaff(server!.url);
    const page = await fetch(`${server!.url}/settings/mail`, { headers: { Cookie: cookie } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("connected");
    expect(html).toContain(ticket.reference);
    expect(html).toContain("ticket_reference_missing");
    const agent = await staffSession(server!.url, {
      email: "agent@example.com",
      password: "correct horse battery staple",
      role: "agent",
    });
    expect((await fetch(`${server!.url}/settings/mail`, { headers: { Cookie: agent.cookie } })).status).toBe(403);
    const fetched = await postForm(`${server!.url}/settings/mail`, [["intent", "fetch"]], { Cookie: cookie });
    expect(fetched.status).toBe(200);
    expect(fetched.html).toContain("Fetching now");
    const row = (await mailboxRow())!;
    expect(row.fetchRequestedAt).not.toBeNull();
  });

  it("backfills 1,000 messages", async () => {
    await server?.stop();
    server = null;
    const ids = Array.from({ length: 1000 }, (_, i) => `bulk-${i}`);
    await Promise.all(ids.map((id) => append(reply(id))));
    const started = Date.now();
    server = await startServer(intakeEnv());
    await until(
      "the backfill",
      () => folderCount(FOLDER),
      (n) => n === 0,
      240_000,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `IMAP intake: 1,000 messages filed in ${seconds.toFixed(1)} s (${process.env.DATABASE_URL?.split(":")[0]})`,
    );
    expect(new Set(await filedTimes(ids))).toEqual(new Set([1]));
  }, 300_000);
});

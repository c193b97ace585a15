// The IMAP intake (decision 070, docs/api/support.md "Connect a mailbox (IMAP)"): a
// background worker of the server that holds the mailbox of IMAP_URL while it holds its
// lease, and files what arrives there (imap-pass.server.ts). Passes run at start, when the
// server announces new mail (IDLE, or imapflow's NOOP polling where IDLE is missing), every
// IMAP_POLL_SECONDS, and when someone presses "Fetch now". Built on imapflow.
import { randomUUID } from "node:crypto";
import os from "node:os";
import { ImapFlow } from "imapflow";
import { every } from "~/jobs/periodic.server";
import { startPollingWorker, type PollingWorker } from "~/jobs/polling-worker.server";
import { env } from "~/utils/env.server";
import { log } from "~/utils/log.server";
import { counter, gauge } from "~/utils/metrics.server";
import { PASS_BATCH, runPass } from "./imap-pass.server";
import {
  fetchRequested,
  LeaseLost,
  mailboxStatus,
  passDone,
  releaseLease,
  requestFetch,
  takeLease,
  writeState,
} from "./imap-store.server";

export type ImapConfig = {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  password: string;
  folder: string;
  /** The mailbox's row: user, host, port and folder (never the password). */
  id: string;
};

/** IMAP_URL read: imaps:// is TLS from the start; imap:// is upgraded with STARTTLS whenever offered. */
export function imapConfig(url: string): ImapConfig {
  const parsed = new URL(url);
  const secure = parsed.protocol === "imaps:";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const port = Number(parsed.port) || (secure ? 993 : 143);
  const user = decodeURIComponent(parsed.username);
  const folder = decodeURIComponent(parsed.pathname.replace(/^\/+/, "")) || "INBOX";
  return {
    host,
    port,
    secure,
    user,
    password: decodeURIComponent(parsed.password),
    folder,
    id: `${user}@${host}:${port}/${folder}`,
  };
}

/** The mailbox's row when IMAP_URL is set. */
export const configuredMailbox = () => (env.IMAP_URL ? imapConfig(env.IMAP_URL).id : null);

const connected = gauge({
  name: "leadcapture_imap_connected",
  help: "1 while this instance holds the IMAP mailbox and is connected to it.",
});
const connectionFailures = counter({
  name: "leadcapture_imap_connection_failures_total",
  help: "Connections to the IMAP mailbox that failed or broke off (a pass was cut short).",
});
connected.set(0);
connectionFailures.inc(0);

let running: { kick: () => void } | null = null;

/**
 * "Fetch now": the instance holding the mailbox fetches at once (this one, or another within
 * a third of the lease). False when no mailbox is configured.
 */
export async function fetchNow(): Promise<boolean> {
  const id = configuredMailbox();
  if (!id) return false;
  await requestFetch(id);
  running?.kick();
  return true;
}

/** What /settings/mail shows: the mailbox as configured (never its password) and its row. */
export async function mailboxPage() {
  if (!env.IMAP_URL) return { config: null, status: null };
  const { host, port, user, folder, id } = imapConfig(env.IMAP_URL);
  const config = {
    host,
    port,
    user,
    folder,
    processedFolder: env.IMAP_PROCESSED_MAILBOX,
    failedFolder: env.IMAP_FAILED_MAILBOX,
  };
  const status = await mailboxStatus(id);
  return {
    config,
    status: status && {
      ...status,
      stateAt: status.stateAt?.toISOString() ?? null,
      lastFiledAt: status.lastFiledAt?.toISOString() ?? null,
      failures: status.failures.map((failure) => ({ ...failure, createdAt: failure.createdAt.toISOString() })),
    },
  };
}

const messageOf = (error: unknown) => {
  const { message, responseText } = error as { message?: string; responseText?: string };
  return [message, responseText].filter(Boolean).join(": ") || String(error);
};

/** Creates the folder unless it is there. */
async function ensureFolder(client: ImapFlow, folder: string): Promise<void> {
  const folders = await client.list();
  if (!folders.some((entry) => entry.path === folder)) await client.mailboxCreate(folder);
}

/** Starts the intake when IMAP_URL is set; stop() ends the pass in progress, logs out and frees the mailbox. */
export function startImapIntake(): { stop: () => Promise<void> } {
  if (!env.IMAP_URL) return { stop: async () => {} };
  const config = imapConfig(env.IMAP_URL);
  const holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = env.IMAP_LEASE_SECONDS * 1000;
  let client: ImapFlow | null = null;
  let holding = false;
  let stopping = false;
  let retries = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  async function disconnect(): Promise<void> {
    const current = client;
    client = null;
    connected.set(0);
    if (current) await current.logout().catch(() => current.close());
  }

  // After a failure: again soon, then less often, never less often than the poll.
  function retrySoon(): void {
    clearTimeout(retryTimer);
    retries += 1;
    const delay = Math.min(1000 * 2 ** Math.min(retries, 10), env.IMAP_POLL_SECONDS * 1000);
    retryTimer = setTimeout(() => worker.kick(), delay);
    retryTimer.unref();
  }

  async function connect(): Promise<ImapFlow> {
    const next = new ImapFlow({
      host: config.host,
      port: config.port,
      secure: config.secure,
      auth: { user: config.user, pass: config.password },
      logger: false,
      // IDLE soon after each pass, so that new mail is announced at once.
      autoIdleDelay: 1000,
      maxIdleTime: Math.min(env.IMAP_POLL_SECONDS, 120) * 1000,
      missingIdleCommand: "NOOP",
      connectionTimeout: 30_000,
    });
    next.on("error", (error: unknown) => log.warn(`IMAP connection error: ${messageOf(error)}`));
    next.on("exists", (data: { count: number; prevCount: number }) => {
      if (data.count > data.prevCount) worker.kick();
    });
    next.on("close", () => {
      if (client !== next) return;
      client = null;
      connected.set(0);
      if (stopping) return;
      connectionFailures.inc();
      writeState(config.id, holder, "disconnected", "The server closed the connection; reconnecting.").catch(() => {});
      retrySoon();
    });
    await next.connect();
    for (const folder of [env.IMAP_PROCESSED_MAILBOX, env.IMAP_FAILED_MAILBOX]) await ensureFolder(next, folder);
    client = next;
    connected.set(1);
    const how = next.capabilities.has("IDLE") ? "IDLE" : `polling every ${env.IMAP_POLL_SECONDS} s`;
    const tls = next.secureConnection ? "TLS" : "no TLS (the server offers no STARTTLS)";
    await writeState(config.id, holder, "connected", `${how}, ${tls}`);
    return next;
  }

  async function pass(): Promise<number> {
    if (stopping) return 0;
    const startedAt = new Date();
    try {
      holding = await takeLease(config.id, holder, leaseMs);
      if (!holding) {
        await disconnect();
        return 0;
      }
      const current = client ?? (await connect());
      const taken = await runPass({
        client: current,
        id: config.id,
        holder,
        folder: config.folder,
        processedFolder: env.IMAP_PROCESSED_MAILBOX,
        failedFolder: env.IMAP_FAILED_MAILBOX,
        backfillDays: env.IMAP_BACKFILL_DAYS,
      });
      await passDone(config.id, holder, startedAt);
      retries = 0;
      return taken;
    } catch (error) {
      if (error instanceof LeaseLost) {
        holding = false;
        log.warn("IMAP intake: another instance holds the mailbox now");
      } else {
        connectionFailures.inc();
        log.error(`IMAP intake pass failed: ${messageOf(error)}`);
        await writeState(config.id, holder, "error", messageOf(error)).catch(() => {});
        retrySoon();
      }
      await disconnect();
      return 0;
    }
  }

  const worker: PollingWorker = startPollingWorker({
    name: "imap intake",
    pollMs: env.IMAP_POLL_SECONDS * 1000,
    pass,
    batchSize: PASS_BATCH,
  });
  running = worker;

  // The lease is renewed while connected (a long backfill included); a standby instance
  // tries to take it; whoever holds it answers "Fetch now" pressed on another instance.
  const keeper = every(leaseMs / 3, "imap lease", async () => {
    if (stopping) return;
    if (!holding) return worker.kick();
    holding = await takeLease(config.id, holder, leaseMs);
    if (!holding) await disconnect();
    else if (await fetchRequested(config.id)) worker.kick();
  });

  return {
    async stop() {
      stopping = true;
      running = null;
      clearTimeout(retryTimer);
      await keeper.stop();
      await worker.stop();
      await disconnect();
      await releaseLease(config.id, holder).catch((error: unknown) => log.error("IMAP lease not released", error));
    },
  };
}

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

/** A logged-in connection, the intake's folders created if missing. */
async function openConnection(
  config: ImapConfig,
  { onNewMail, onClose }: { onNewMail: () => void; onClose: () => void },
): Promise<ImapFlow> {
  const client = new ImapFlow({
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
  client.on("error", (error: unknown) => log.warn(`IMAP connection error: ${messageOf(error)}`));
  client.on("exists", (data: { count: number; prevCount: number }) => {
    if (data.count > data.prevCount) onNewMail();
  });
  client.on("close", onClose);
  await client.connect();
  for (const folder of [env.IMAP_PROCESSED_MAILBOX, env.IMAP_FAILED_MAILBOX]) await ensureFolder(client, folder);
  return client;
}

/** The intake of one instance: its connection, its hold on the mailbox, its passes. */
class ImapIntake {
  private readonly holder = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly leaseMs = env.IMAP_LEASE_SECONDS * 1000;
  private client: ImapFlow | null = null;
  private holding = false;
  private stopping = false;
  private retries = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  readonly worker: PollingWorker;
  private readonly keeper: { stop: () => Promise<void> };

  constructor(private readonly config: ImapConfig) {
    this.worker = startPollingWorker({
      name: "imap intake",
      pollMs: env.IMAP_POLL_SECONDS * 1000,
      pass: () => this.pass(),
      batchSize: PASS_BATCH,
    });
    // The lease is renewed while connected (a long backfill included); a standby instance
    // tries to take it; whoever holds it answers "Fetch now" pressed on another instance.
    this.keeper = every(this.leaseMs / 3, "imap lease", () => this.keep());
  }

  private async keep(): Promise<void> {
    if (this.stopping) return;
    if (!this.holding) return this.worker.kick();
    this.holding = await takeLease(this.config.id, this.holder, this.leaseMs);
    if (!this.holding) await this.disconnect();
    else if (await fetchRequested(this.config.id)) this.worker.kick();
  }

  private async disconnect(): Promise<void> {
    const current = this.client;
    this.client = null;
    connected.set(0);
    if (!current) return;
    // A connection in a bad state may never answer LOGOUT: it is closed after a few seconds.
    const closing = current.logout().catch(() => {});
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    current.close();
  }

  /** After a failure: again soon, then less often, never less often than the poll. */
  private retrySoon(): void {
    clearTimeout(this.retryTimer);
    this.retries += 1;
    const delay = Math.min(1000 * 2 ** Math.min(this.retries, 10), env.IMAP_POLL_SECONDS * 1000);
    this.retryTimer = setTimeout(() => this.worker.kick(), delay);
    this.retryTimer.unref();
  }

  private onClose(closed: ImapFlow): void {
    if (this.client !== closed) return;
    this.client = null;
    connected.set(0);
    if (this.stopping) return;
    connectionFailures.inc();
    const detail = "The server closed the connection; reconnecting.";
    writeState(this.config.id, this.holder, "disconnected", detail).catch(() => {});
    this.retrySoon();
  }

  private async connect(): Promise<ImapFlow> {
    const next: ImapFlow = await openConnection(this.config, {
      onNewMail: () => this.worker.kick(),
      onClose: () => this.onClose(next),
    });
    this.client = next;
    connected.set(1);
    const how = next.capabilities.has("IDLE") ? "IDLE" : `polling every ${env.IMAP_POLL_SECONDS} s`;
    const tls = next.secureConnection ? "TLS" : "no TLS (the server offers no STARTTLS)";
    await writeState(this.config.id, this.holder, "connected", `${how}, ${tls}`);
    return next;
  }

  private async pass(): Promise<number> {
    if (this.stopping) return 0;
    const startedAt = new Date();
    try {
      this.holding = await takeLease(this.config.id, this.holder, this.leaseMs);
      if (!this.holding) {
        await this.disconnect();
        return 0;
      }
      const taken = await runPass({
        client: this.client ?? (await this.connect()),
        id: this.config.id,
        holder: this.holder,
        folder: this.config.folder,
        processedFolder: env.IMAP_PROCESSED_MAILBOX,
        failedFolder: env.IMAP_FAILED_MAILBOX,
        backfillDays: env.IMAP_BACKFILL_DAYS,
      });
      await passDone(this.config.id, this.holder, startedAt);
      this.retries = 0;
      return taken;
    } catch (error) {
      if (error instanceof LeaseLost) {
        this.holding = false;
        log.warn("IMAP intake: another instance holds the mailbox now");
      } else {
        connectionFailures.inc();
        log.error(`IMAP intake pass failed: ${messageOf(error)}`);
        await writeState(this.config.id, this.holder, "error", messageOf(error)).catch(() => {});
        this.retrySoon();
      }
      await this.disconnect();
      return 0;
    }
  }

  /** Ends the pass in progress, logs out and frees the mailbox. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    await this.keeper.stop();
    await this.worker.stop();
    await this.disconnect();
    await releaseLease(this.config.id, this.holder).catch((error: unknown) =>
      log.error("IMAP lease not released", error),
    );
  }
}

/** Starts the intake when IMAP_URL is set. */
export function startImapIntake(): { stop: () => Promise<void> } {
  if (!env.IMAP_URL) return { stop: async () => {} };
  const intake = new ImapIntake(imapConfig(env.IMAP_URL));
  running = intake.worker;
  return {
    async stop() {
      running = null;
      await intake.stop();
    },
  };
}

// Reading what tests/support/loop-monitor.ts recorded in a test server, and the latencies
// a test measured beside it; the stall tests' server that records it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { apiClient } from "./http";
import { preloadInto, startServer, type TestServer } from "./server";

/** The longest event-loop delay the server recorded in `file` between two moments (ms since the epoch). */
export function loopStallBetween(file: string, from: number, to: number): number {
  const windows = fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { at: number; maxMs: number });
  return Math.max(0, ...windows.filter((w) => w.at >= from && w.at <= to + 100).map((w) => w.maxMs));
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Asks `url`/healthz over and over until `stop()`, which resolves with every latency (ms). */
export function pollHealthz(url: string): { stop: () => Promise<number[]> } {
  const latencies: number[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const started = performance.now();
      try {
        await (await fetch(`${url}/healthz`)).arrayBuffer();
      } catch {
        break; // the server is gone: the test failed, or is ending
      }
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      polling = false;
      await poller;
      return latencies;
    },
  };
}

export type MonitoredServer = {
  server: TestServer;
  /** Where the server records its event-loop delay (loopStallBetween reads it). */
  loopFile: string;
  /** A ticket opened on the server, for inbound emails to answer. */
  reference: string;
  stop: () => Promise<void>;
};

/**
 * The stall tests' server: support requests unlimited, tests/support/loop-monitor.ts preloaded
 * to record the event-loop delay to a file of its own, and one ticket opened by `customer`.
 */
export async function startMonitoredServer(name: string, customer: string, subject: string): Promise<MonitoredServer> {
  const loopFile = path.join(os.tmpdir(), `${name}-${process.pid}-${Date.now()}.ndjson`);
  const server = await startServer({
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    LOOP_MONITOR_FILE: loopFile,
    NODE_OPTIONS: preloadInto("tests/support/loop-monitor.ts"),
  });
  const res = await apiClient(server.url)("POST", "/api/support-requests", { email: customer, subject, message: "Hi" });
  return {
    server,
    loopFile,
    reference: res.body.reference,
    async stop() {
      await server.stop();
      fs.rmSync(loopFile, { force: true });
    },
  };
}

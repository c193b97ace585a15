// Reading what tests/support/loop-monitor.ts recorded in a test server, and the latencies
// a test measured beside it.
import fs from "node:fs";

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

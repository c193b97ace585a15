// Loaded into a test server with preloadInto (./server.ts): every 50 ms, appends the longest
// event-loop delay of the last window to LOOP_MONITOR_FILE ({ at, maxMs } per line), so a
// test can tell how long any one request held the server's event loop. NODE_OPTIONS loads it
// into the worker threads too; there it records nothing: an idle piscina worker waits in
// Atomics.wait, and a worker whose task yields to its own loop (mailparser's streams) would
// then report that wait as seconds of "delay" that no request felt.
import fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";

const file = process.env.LOOP_MONITOR_FILE;
if (file && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  setInterval(() => {
    fs.appendFileSync(file, `${JSON.stringify({ at: Date.now(), maxMs: histogram.max / 1e6 })}\n`);
    histogram.reset();
  }, 50).unref();
}

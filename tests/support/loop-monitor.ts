// Loaded into a test server with preloadInto (./server.ts): every 50 ms, appends the longest
// event-loop delay of the last window to LOOP_MONITOR_FILE ({ at, maxMs } per line), so a
// test can tell how long any one request held the server's event loop.
import fs from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

const file = process.env.LOOP_MONITOR_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  setInterval(() => {
    fs.appendFileSync(file, `${JSON.stringify({ at: Date.now(), maxMs: histogram.max / 1e6 })}\n`);
    histogram.reset();
  }, 50).unref();
}

// Loaded into a test server with preloadInto (./server.ts), beside --expose-gc: every
// LIVE_MEMORY_MS on the main thread, a full garbage collection, then one line in
// LIVE_MEMORY_FILE: { at, live, rss }, where `live` is what the process still holds (its JS
// heap and its Buffers) once the garbage is gone. Resident memory alone says more about when
// V8 collects than about the code: an upload's dead 64 KiB socket reads pile up by tens of MB
// before V8 calls a collection, and freed memory stays resident for the allocator to reuse.
import fs from "node:fs";
import { isMainThread } from "node:worker_threads";

const file = process.env.LIVE_MEMORY_FILE;
const every = Number(process.env.LIVE_MEMORY_MS ?? 250);
const gc = (globalThis as { gc?: () => void }).gc;
if (file && gc && isMainThread) {
  setInterval(() => {
    gc();
    const { heapUsed, arrayBuffers, rss } = process.memoryUsage();
    fs.appendFileSync(file, `${JSON.stringify({ at: Date.now(), live: heapUsed + arrayBuffers, rss })}\n`);
  }, every).unref();
}

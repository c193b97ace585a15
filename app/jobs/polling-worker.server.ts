// A background worker of the server process: runs `pass` every `pollMs`, at once when
// kicked, and again without waiting while a pass reports a full batch. `stop()` lets a
// pass in progress finish (a send is never cut mid-way) before resolving. The outbox
// (email) and the webhook deliveries run on it.
import { log, outsideRequest } from "~/utils/log.server";

export type PollingWorker = {
  /** A pass now. */
  kick: () => void;
  /**
   * A pass within `delay` ms, sooner if one is already due: for work that arrives often
   * (one per request), so that a pass takes a batch rather than one row each time.
   */
  nudge?: (delay: number) => void;
  stop: () => Promise<void>;
};

export function startPollingWorker({
  name,
  pollMs,
  pass,
  batchSize,
  canContinue = () => true,
}: {
  name: string;
  pollMs: number;
  /** One pass: handles what is due and says how many it handled. */
  pass: () => Promise<number>;
  batchSize: number;
  canContinue?: () => boolean;
}): PollingWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let nextAt = Infinity;
  // A nudge that came during a pass: the next pass after this delay, not pollMs.
  let nudgedDelay: number | null = null;

  const schedule = (delay: number) => {
    if (stopped) return;
    clearTimeout(timer);
    nextAt = Date.now() + delay;
    // A kick from a request must not lend the pass that request's id in the log.
    timer = outsideRequest(() => setTimeout(run, delay));
  };

  function run() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          // A full batch means more may be due: go on without waiting for the next tick.
          while (!stopped && (await pass()) >= batchSize && canContinue());
        } while (again && !stopped);
      } catch (error) {
        log.error(`${name} worker pass failed`, error);
      } finally {
        running = undefined;
        schedule(Math.min(pollMs, nudgedDelay ?? pollMs));
        nudgedDelay = null;
      }
    })();
  }

  schedule(0);
  return {
    kick: () => schedule(0),
    nudge(delay) {
      if (running) nudgedDelay = Math.min(delay, nudgedDelay ?? delay);
      else if (Date.now() + delay < nextAt) schedule(delay);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

// Housekeeping that runs on a timer while the server runs (deleting ended sessions,
// unlinked attachments), registered as background work in entry.server.tsx.
import { log } from "~/utils/log.server";

/** Runs `task` every `intervalMs`, logging (not throwing) its failures; stop() ends it. */
export function every(intervalMs: number, name: string, task: () => Promise<unknown>): { stop: () => Promise<void> } {
  const timer = setInterval(() => {
    task().catch((error) => log.error(`${name} failed`, error));
  }, intervalMs);
  timer.unref();
  return { stop: async () => clearInterval(timer) };
}

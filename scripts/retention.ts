// npm run retention
// One retention pass now, with the periods of the environment (.env included), for an operator
// who will not wait for the hourly one or who runs the server without it. Safe beside a running
// server: the pass deletes in small batches and SQLite's busy timeout queues it behind the
// server's writes (decision 054).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exitOnConfigError } from "../app/utils/config-error";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
if (fs.existsSync(path.join(root, ".env"))) process.loadEnvFile(path.join(root, ".env"));

const { runRetention, periodsFromEnv } = await import("../app/retention/retention.server").catch(exitOnConfigError);
const { db } = await import("../app/storage/db.server");
try {
  const periods = periodsFromEnv();
  const started = Date.now();
  const counts = await runRetention({ periods });
  const kept = (days: number | null) => (days === null ? "forever" : `${days} days`);
  console.log(
    `Retention (webhooks ${kept(periods.webhookDays)}, email ${kept(periods.emailDays)}, ` +
      `audit ${kept(periods.auditDays)}, attachments ${kept(periods.attachmentDays)}) ` +
      `took ${((Date.now() - started) / 1000).toFixed(1)} s:`,
  );
  for (const [kind, count] of Object.entries(counts)) console.log(`  ${kind}: ${count}`);
} finally {
  await db.$disconnect();
}

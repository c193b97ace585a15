// The first half of `npm start`: makes sure there is an environment, migrates the
// database, and creates the first staff user when there is none.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const envFile = path.join(root, ".env");

// A fresh clone has no .env: write one with a generated SESSION_SECRET, so sessions
// survive restarts, and ALLOW_INSECURE_HTTP=true, so the quick start serves plain
// http://localhost (a production start otherwise needs an https:// APP_URL).
// Everything else keeps the defaults of .env.example.
if (!fs.existsSync(envFile) && !process.env.SESSION_SECRET) {
  const example = fs.readFileSync(path.join(root, ".env.example"), "utf8");
  const secret = randomBytes(32).toString("hex");
  const local = example
    .replace(/^SESSION_SECRET=.*$/m, `SESSION_SECRET=${secret}`)
    .replace(/^ALLOW_INSECURE_HTTP=.*$/m, "ALLOW_INSECURE_HTTP=true");
  fs.writeFileSync(envFile, local);
  console.log("Wrote .env for a local trial on http://localhost (edit it to configure the service).");
}
if (fs.existsSync(envFile)) process.loadEnvFile(envFile);

execFileSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prisma.ts"), "migrate", "deploy"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
  env: process.env,
});
console.log("Database migrated.");

const { countUsers, createOrResetUser } = await import("../app/models/user.server");
if ((await countUsers()) === 0) {
  const email = process.env.ADMIN_EMAIL || "admin@example.com";
  const password = process.env.ADMIN_PASSWORD || randomBytes(12).toString("base64url");
  await createOrResetUser({ email, password });
  console.log("\nFirst staff user created. Log in with:");
  console.log(`  email:    ${email}`);
  if (process.env.ADMIN_PASSWORD) console.log("  password: (ADMIN_PASSWORD)\n");
  else console.log(`  password: ${password}\n  (shown once: write it down, or reset it with npm run user:create)\n`);
}
const { db } = await import("../app/utils/db.server");
await db.$disconnect();

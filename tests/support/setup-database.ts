// Before each test file: a fresh database of its own, and the environment the app's
// modules (imported by the test) and its server (started by the test) both read.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { SECRET_PREFIXES } from "./secrets";
import { serverLogPath } from "./server";

const templateUrl = inject("templateDatabaseUrl");
const runDir = inject("runDir");
const runId = inject("runId");
const fileId = randomBytes(4).toString("hex");

let databaseUrl: string;
if (templateUrl.startsWith("file:")) {
  const file = path.join(runDir, `${fileId}.db`);
  fs.copyFileSync(templateUrl.slice("file:".length), file);
  databaseUrl = `file:${file}`;
} else {
  const template = new URL(templateUrl).pathname.slice(1);
  const name = `lc_test_${runId}_${fileId}`;
  const admin = new pg.Client({ connectionString: templateUrl.replace(/\/[^/]*$/, "/postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  await admin.end();
  databaseUrl = templateUrl.replace(/\/[^/]*$/, `/${name}`);
}

Object.assign(process.env, {
  NODE_ENV: "test",
  ENV_FILE: "",
  DATABASE_URL: databaseUrl,
  SESSION_SECRET: `${SECRET_PREFIXES[0]}${randomBytes(16).toString("hex")}`,
  SUPPORT_API_KEY: `${SECRET_PREFIXES[1]}${randomBytes(8).toString("hex")}`,
  INBOUND_SECRET: `${SECRET_PREFIXES[2]}${randomBytes(8).toString("hex")}`,
  OUTBOX_POLL_MS: "200",
  // Test servers run NODE_ENV=production on plain http://127.0.0.1.
  ALLOW_INSECURE_HTTP: "true",
  TEST_SERVER_LOG: serverLogPath(runId),
  TEST_RUN_DIR: runDir,
});

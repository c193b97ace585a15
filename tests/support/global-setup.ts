// Once per project run: checks the build exists and migrates a template database
// that every test file then copies (SQLite) or clones (PostgreSQL TEMPLATE).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { SECRET_PREFIXES } from "./secrets";
import { SERVERS_STARTED } from "./server";
import type { TestProject } from "vitest/node";

const root = path.resolve(import.meta.dirname, "..", "..");

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

declare module "vitest" {
  export interface ProvidedContext {
    runId: string;
    runDir: string;
    templateDatabaseUrl: string;
  }
}

function migrate(databaseUrl: string) {
  execFileSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prisma.ts"), "migrate", "deploy"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

export default async function setup(project: TestProject) {
  const buildDir = path.resolve(root, process.env.BUILD_DIR ?? "build");
  if (!fs.existsSync(path.join(buildDir, "server", "index.js"))) {
    throw new Error(`No production build in ${buildDir}: run \`npm run build\` first (npm test does).`);
  }
  // The project's own env (vitest.config.ts): global setup runs in the main process, where
  // process.env does not carry it, and reading only process.env ran the "postgres" project
  // on SQLite.
  const kind = (project.config.env?.TEST_DATABASE as string | undefined) ?? process.env.TEST_DATABASE ?? "sqlite";
  if (kind !== "sqlite" && kind !== "postgres") throw new Error(`Unknown TEST_DATABASE ${kind}`);
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), `lc-test-${kind}-`));
  const logFile = path.join(root, "test-results", `server-output-${runId}.log`);
  project.provide("runId", runId);
  project.provide("runDir", runDir);

  if (kind === "postgres") {
    const template = `lc_test_${runId}_template`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${template}"`);
    await admin.end();
    const templateUrl = new URL(POSTGRES_ADMIN_URL);
    templateUrl.pathname = `/${template}`;
    migrate(templateUrl.toString());
    project.provide("templateDatabaseUrl", templateUrl.toString());
    return async () => {
      assertNoSecretsLogged(logFile, runDir);
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE $1",
        [`lc_test_${runId}_%`],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      await client.end();
      fs.rmSync(runDir, { recursive: true, force: true });
    };
  }

  const templateFile = path.join(runDir, "template.db");
  migrate(`file:${templateFile}`);
  project.provide("templateDatabaseUrl", `file:${templateFile}`);
  return () => {
    try {
      assertNoSecretsLogged(logFile, runDir);
    } finally {
      fs.rmSync(runDir, { recursive: true, force: true });
    }
  };
}

/**
 * Every server the run started wrote its output to one log; none may have printed a
 * secret (each test file's secrets carry a known prefix, see setup-database.ts).
 */
function assertNoSecretsLogged(logFile: string, runDir: string) {
  // A run whose tests started servers must have their output: without it the scan would
  // pass without having looked at anything. (A run of server-less files has nothing to scan.)
  if (!fs.existsSync(logFile)) {
    if (!fs.existsSync(path.join(runDir, SERVERS_STARTED))) return;
    throw new Error(
      `Test servers ran, but no server output was recorded in ${logFile}: the secret scan has nothing to read.`,
    );
  }
  const output = fs.readFileSync(logFile, "utf8");
  const leaked = SECRET_PREFIXES.filter((prefix) => output.includes(prefix));
  if (leaked.length > 0) {
    throw new Error(`The servers' output contains secrets (${leaked.join(", ")}): see ${logFile}.`);
  }
  fs.rmSync(logFile);
}

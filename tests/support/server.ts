// Starts the real production server (node build/node/server.js on the built app) as a child
// process on a free port, against this test file's database.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";

const root = path.resolve(import.meta.dirname, "..", "..");
const logDir = path.join(root, "test-results");

export function serverLogPath(runId: string): string {
  return path.join(logDir, `server-output-${runId}.log`);
}

/**
 * The V8 flags production runs the server with (`npm start`, `npm run serve`, the Dockerfile;
 * tests/unit/server-flags.test.ts holds them to this list), so tests and the bench measure
 * the server as it runs. Decision 073: V8's young generation otherwise grows with the
 * machine's memory (to 134 MB here), and a long export took it there.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=16"];

export type TestServer = {
  url: string;
  /** Everything the server printed so far. */
  output: () => string;
  /** SIGTERM and wait for exit (graceful shutdown). */
  stop: () => Promise<number | null>;
  /** SIGKILL: the process dies mid-flight. */
  kill: () => Promise<void>;
  process: ChildProcess;
};

/**
 * NODE_OPTIONS that load a TypeScript module into a test server, and into each of its
 * worker threads, before their own code. The built server runs no TypeScript loader, so
 * the module (which may import only Node's own modules) is compiled to a temporary .mjs.
 */
export function preloadInto(module: string): string {
  const source = fs.readFileSync(path.resolve(root, module), "utf8");
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const file = path.join(os.tmpdir(), `preload-${process.pid}-${path.basename(module, ".ts")}.mjs`);
  fs.writeFileSync(file, outputText);
  return `${process.env.NODE_OPTIONS ?? ""} --import ${file}`.trim();
}

/** A file in the run's directory that says a test server was started in this run. */
export const SERVERS_STARTED = "servers-started";

/**
 * `dev: true` starts what `npm run dev` runs (server/main.ts --dev with tsx's loader, Vite
 * compiling app/) instead of the production build.
 */
export async function startServer(
  env: Record<string, string | undefined> = {},
  {
    dev = false,
    nodeArgs = [],
    serverFlags = SERVER_NODE_FLAGS,
  }: { dev?: boolean; nodeArgs?: string[]; serverFlags?: string[] } = {},
): Promise<TestServer> {
  // Told to the end-of-run secret scan, which then insists on finding the servers' log.
  if (process.env.TEST_RUN_DIR) fs.writeFileSync(path.join(process.env.TEST_RUN_DIR, SERVERS_STARTED), "");
  const args = [
    ...serverFlags,
    ...nodeArgs,
    ...(dev
      ? ["--import", "tsx", path.join(root, "server", "main.ts"), "--dev"]
      : [path.join(root, process.env.BUILD_DIR ?? "build", "node", "server.js")]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    // VITEST in the environment would turn the Remix plugin off (vite.config.ts).
    env: {
      ...process.env,
      VITEST: undefined,
      NODE_ENV: dev ? "development" : "production",
      PORT: "0",
      HOST: "127.0.0.1",
      // Every test client is 127.0.0.1, standing for many clients: a test of the per-client
      // cap sets its own.
      MAX_CONNECTIONS_PER_CLIENT: "1000",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  if (process.env.TEST_SERVER_LOG) fs.mkdirSync(logDir, { recursive: true });
  // One log per test run and project (set by setup-database.ts): global-setup.ts greps
  // it for secrets at the end. Outside the suite (the benchmark) nothing is written.
  const logPath = process.env.TEST_SERVER_LOG;
  const log = logPath ? fs.createWriteStream(logPath, { flags: "a" }) : null;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    log?.write(chunk);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code, signal) => {
      // A death by signal is worth seeing in the failure: its output says what happened.
      if (signal) output += `\n[test server died of ${signal}]\n`;
      resolve(code);
    }),
  );

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const onData = () => {
      const match = output.match(/listening on (http:\/\/[^\s"]+)/);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        resolve(match[1].replace("localhost", "127.0.0.1"));
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });

  return {
    url,
    output: () => output,
    process: child,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const code = await exited;
      log?.end();
      return code;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
      log?.end();
    },
  };
}

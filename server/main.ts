// The service's entry point, built to build/node/server.js for production.
//
//   node --max-semi-space-size=16 build/node/server.js   serves build/ on HOST:PORT (npm start,
//                                 npm run serve; the flag: decision 073)
//   node --import tsx server/main.ts --dev   the same server, Vite compiling app/ (npm run dev)
//
// Reads .env first when present (ENV_FILE names another file; ENV_FILE="" none).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { exitOnConfigError } from "../app/utils/config-error";
import { log, logProcessEvents } from "../app/utils/log.server";
import { createAppServer } from "./app-server";

/** The project folder (the nearest with a package.json), whether run from server/ or build/node/. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, "package.json")) && dir !== path.dirname(dir)) dir = path.dirname(dir);
  return dir;
}

function loadEnvFile(root: string) {
  const file = process.env.ENV_FILE ?? ".env";
  if (file && fs.existsSync(path.resolve(root, file))) process.loadEnvFile(path.resolve(root, file));
}

const dev = process.argv.includes("--dev");
const root = projectRoot();
loadEnvFile(root);
process.env.NODE_ENV ??= dev ? "development" : "production";
logProcessEvents();

// A bad configuration (read as the app loads) stops the start with one line naming the
// variables, not a stack trace.
const app = await createAppServer({ dev, buildDir: path.resolve(root, process.env.BUILD_DIR ?? "build") }).catch(
  exitOnConfigError,
);
const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || "0.0.0.0";
app.server.listen(port, host, () => {
  const address = app.server.address();
  const shown = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  log.info(`Lead Capture listening on http://${shown}:${typeof address === "object" ? address?.port : port}`);
  app.startBackgroundWork().catch((error: unknown) => {
    log.error("the background work could not start", error);
    process.exit(1);
  });
});

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal}: finishing requests in flight, then stopping.`);
    void app.shutdown().then((clean) => {
      if (!clean) log.error("stopping took longer than SHUTDOWN_TIMEOUT_MS; exiting anyway.");
      process.exit(clean ? 0 : 1);
    });
  });
}

// Part of `npm start` (scripts/setup.ts --build): builds the app (`npm run build`) unless the build is newer than
// every file it is made from, so a second start skips the 10–15 s build while a changed
// source file still rebuilds. `npm test` and `npm run bench` always build.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What the build is made from: the app, the server, static files, configs, dependencies. */
export const BUILD_SOURCES = [
  "app",
  "server",
  "public",
  "prisma/schema.prisma",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "vite.config.ts",
  "vite.node.config.ts",
  "vite.embed.config.ts",
];
/** What a complete build has. */
export const BUILD_OUTPUTS = ["build/server/index.js", "build/node/server.js", "build/embed/embed.js"];
/** Written after a build that succeeded: the time it started (a file saved during it is newer). */
export const STAMP = "build/.built-at";

/** The newest modification time (ms) under `entry` (a file or a folder). */
function newestUnder(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestUnder(path.join(entry, name)));
  return newest;
}

/** Whether the build in `dir` is complete and newer than every source it came from. */
export function buildIsCurrent(dir: string): boolean {
  if (!BUILD_OUTPUTS.every((output) => fs.existsSync(path.join(dir, output)))) return false;
  const stamp = path.join(dir, STAMP);
  const builtAt = fs.existsSync(stamp) ? Number(fs.readFileSync(stamp, "utf8").trim()) : 0;
  if (!Number.isFinite(builtAt) || builtAt <= 0) return false;
  return BUILD_SOURCES.every((source) => newestUnder(path.join(dir, source)) < builtAt);
}

/** Builds unless the build is current; records when a build that succeeded started. */
export function buildIfStale(dir = root): void {
  if (buildIsCurrent(dir)) {
    console.log("The build is newer than its sources: not building again.");
    return;
  }
  const startedAt = Date.now();
  fs.rmSync(path.join(dir, STAMP), { force: true });
  console.log("Building the app (about 30 s on a first start)…");
  // Quiet unless it fails: Vite's progress lines and warnings about empty chunks look like
  // errors to someone starting the service, and push the sign-in details out of sight.
  try {
    execFileSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as { stdout?: Buffer; stderr?: Buffer };
    process.stdout.write(failed.stdout ?? "");
    process.stderr.write(failed.stderr ?? "");
    throw new Error("The build failed (its output is above).");
  }
  fs.writeFileSync(path.join(dir, STAMP), `${startedAt}\n`);
  console.log(`Built in ${Math.round((Date.now() - startedAt) / 1000)} s.`);
}

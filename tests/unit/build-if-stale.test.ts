// `npm start` builds only when the build is missing, incomplete or older than a source.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILD_OUTPUTS, buildIsCurrent, STAMP } from "../../scripts/build-if-stale";

let dir: string;
const write = (file: string, text = "x", at?: number) => {
  const target = path.join(dir, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, text);
  if (at !== undefined) fs.utimesSync(target, at / 1000, at / 1000);
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "build-if-stale-"));
  const past = Date.now() - 60_000;
  write("app/routes/a.tsx", "a", past);
  write("server/main.ts", "m", past);
  write("package.json", "{}", past);
  for (const folder of ["app/routes", "app", "server"]) fs.utimesSync(path.join(dir, folder), past / 1000, past / 1000);
  for (const output of BUILD_OUTPUTS) write(output);
  write(STAMP, `${Date.now() - 30_000}\n`);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("buildIsCurrent", () => {
  it("is true for a complete build that started after every source was saved", () => {
    expect(buildIsCurrent(dir)).toBe(true);
  });

  it("is false once a source file changes", () => {
    write("app/routes/a.tsx", "changed");
    expect(buildIsCurrent(dir)).toBe(false);
  });

  it("is false once a source file is added", () => {
    write("app/routes/b.tsx", "new");
    expect(buildIsCurrent(dir)).toBe(false);
  });

  it("is false after a file is deleted (its folder's time changes)", () => {
    fs.rmSync(path.join(dir, "server/main.ts"));
    expect(buildIsCurrent(dir)).toBe(false);
  });

  it("is false without a stamp (a build that failed or never ran) or with an output missing", () => {
    fs.rmSync(path.join(dir, STAMP));
    expect(buildIsCurrent(dir)).toBe(false);
    write(STAMP, `${Date.now()}\n`);
    expect(buildIsCurrent(dir)).toBe(true);
    fs.rmSync(path.join(dir, BUILD_OUTPUTS[1]));
    expect(buildIsCurrent(dir)).toBe(false);
  });
});

describe("buildIfStale", () => {
  const root = path.resolve(import.meta.dirname, "..", "..");
  /** Runs buildIfStale on `dir` in a process of its own, as `npm start` does; its output. */
  const runBuild = () =>
    spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `import { buildIfStale } from ${JSON.stringify(path.join(root, "scripts", "build-if-stale.ts"))};
         try { buildIfStale(${JSON.stringify(dir)}); } catch (error) { console.error(error.message); process.exit(1); }`,
      ],
      { cwd: root, encoding: "utf8", env: { ...process.env, npm_config_loglevel: "silent" } },
    );
  const script = (body: string) =>
    write("package.json", JSON.stringify({ scripts: { build: `node -e ${JSON.stringify(body)}` } }));

  it("keeps a build's own output to itself when it succeeds, and says how long it took", () => {
    script("console.log('Generated an empty chunk: \\'x\\''); console.warn('(!) Some chunks are larger')");
    const run = runBuild();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(/empty chunk|Some chunks/);
    expect(run.stdout).toMatch(/^Building the app .*\nBuilt in \d+ s\.\n$/);
    expect(fs.existsSync(path.join(dir, STAMP))).toBe(true);
  });

  it("shows the build's output when it fails, and leaves no stamp", () => {
    script("console.error('src/x.ts: unexpected token'); process.exit(2)");
    const run = runBuild();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("src/x.ts: unexpected token");
    expect(run.stderr).toContain("The build failed");
    expect(fs.existsSync(path.join(dir, STAMP))).toBe(false);
  });
});

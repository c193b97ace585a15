// `npm start` builds only when the build is missing, incomplete or older than a source.
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

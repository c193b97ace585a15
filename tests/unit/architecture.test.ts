// The architecture as dependency-cruiser checks it (.dependency-cruiser.cjs, decision 043):
// the real tree passes, and a deliberately broken import (a storage module importing an
// area) fails, naming the rule it breaks. And no folder outside the routes holds more than 15
// modules directly (issue 29): an area that grows past that gets a subfolder with a meaning.
import { execFile } from "node:child_process";
import { readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const depcruise = (...paths: string[]) =>
  run("npx", ["depcruise", ...paths, "--config", ".dependency-cruiser.cjs", "--output-type", "err"], {
    cwd: process.cwd(),
  }).then(
    (done) => ({ code: 0, output: done.stdout + done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({
      code: failed.code,
      output: failed.stdout + failed.stderr,
    }),
  );

describe("the dependency rules", () => {
  it("pass on app/ and server/ as they are", async () => {
    const result = await depcruise("app", "server");
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  }, 120_000);

  it("refuse a storage module that imports an area", async () => {
    const probe = "app/storage/architecture-probe.ts";
    await writeFile(probe, 'import { getLead } from "~/leads/lead.server";\nexport const probe = getLead;\n');
    try {
      const result = await depcruise(probe);
      expect(result.code).not.toBe(0);
      expect(result.output).toContain("foundation-imports-no-area");
      expect(result.output).toContain("app/storage/architecture-probe.ts → app/leads/lead.server.ts");
    } finally {
      await rm(probe, { force: true });
    }
  }, 120_000);
});

/** Every folder under `dir` (itself included) with the count of modules directly in it. */
async function moduleCounts(dir: string): Promise<{ folder: string; modules: number }[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const modules = entries.filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name)).length;
  const below = await Promise.all(
    entries.filter((entry) => entry.isDirectory()).map((entry) => moduleCounts(path.join(dir, entry.name))),
  );
  return [{ folder: dir, modules }, ...below.flat()];
}

describe("the folder tree", () => {
  it("has no folder but the routes holding more than 15 modules directly", async () => {
    const counts = [...(await moduleCounts("app")), ...(await moduleCounts("server"))].filter(
      ({ folder }) => folder !== path.join("app", "routes") && !folder.startsWith(path.join("app", "generated")),
    );
    expect(counts.length).toBeGreaterThan(10);
    expect(counts.filter(({ modules }) => modules > 15)).toEqual([]);
  });
});

// The architecture as dependency-cruiser checks it (.dependency-cruiser.cjs, decision 043):
// the real tree passes, and a deliberately broken import (a storage module importing an
// area) fails, naming the rule it breaks.
import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
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

// Production runs the server with SERVER_NODE_FLAGS (decision 073), and so do the tests and the
// bench: every way the service is started passes them, and they do cap the young generation.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS } from "../support/server";

const root = path.resolve(import.meta.dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

describe("the server's Node flags", () => {
  it("are on every production command that starts the server", () => {
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    const cmd = read("Dockerfile")
      .split("\n")
      .find((line) => line.startsWith("CMD "));
    const starts = [scripts.start, scripts.serve, cmd];
    for (const start of starts) {
      expect(start).toContain("build/node/server.js");
      for (const flag of SERVER_NODE_FLAGS) expect(start).toContain(flag);
    }
    expect(JSON.parse(cmd!.slice(4))).toEqual(["node", ...SERVER_NODE_FLAGS, "build/node/server.js"]);
  });

  it("keep V8's young generation small while much of what is allocated survives a while", () => {
    // Short-lived rows with a window of survivors, as an export makes them: without the cap,
    // V8 doubles the young generation up to a size set by the machine's memory.
    const script = `
      const v8 = require("node:v8");
      const window = [];
      let largest = 0;
      for (let i = 0; i < 3_000_000; i++) {
        window.push({ id: "lead" + i, cells: ["a" + i, i, new Date(i)] });
        if (window.length > 20_000) window.splice(0, 10_000);
        if (i % 100_000 === 0) {
          const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
          largest = Math.max(largest, space.space_size);
        }
      }
      console.log(largest);`;
    const largest = Number(execFileSync(process.execPath, [...SERVER_NODE_FLAGS, "-e", script], { encoding: "utf8" }));
    expect(largest).toBeGreaterThan(0);
    // Two semi-spaces of 16 MiB at most.
    expect(largest).toBeLessThanOrEqual(2 * 16 * 1024 * 1024 + 1024 * 1024);
  });
});

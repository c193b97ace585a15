import { describe, expect, it } from "vitest";
import { missedGoals, verdict, type Row } from "../../bench/verdict";

const row = (figure: string, ok: boolean | null, app = "1", goal = "-"): Row => ({
  figure,
  app,
  baseline: "",
  ratio: "",
  goal,
  ok,
});

describe("bench verdict", () => {
  it("passes when every goal is met, whatever the figures without a goal say", () => {
    const rows = [row("export csv", true), row("list p99", true), row("submit p50/p99", null)];
    expect(missedGoals(rows)).toEqual([]);
    expect(verdict(rows)).toEqual({ exitCode: 0, message: "every goal met (2 of 2)" });
  });

  it("fails and names each figure that missed its goal", () => {
    const rows = [
      row("export csv of 200,000 (s)", false, "9.10", "<= 2x"),
      row("export csv memory growth (MB)", true),
      row("list p50/p99 ms at 200,000", false, "30/84", "p99 < 20"),
      row("inbound p50/p99", null),
    ];
    const result = verdict(rows);
    expect(result.exitCode).toBe(1);
    expect(result.message).toBe(
      [
        "2 goals missed:",
        "  export csv of 200,000 (s): 9.10 (goal <= 2x)",
        "  list p50/p99 ms at 200,000: 30/84 (goal p99 < 20)",
      ].join("\n"),
    );
  });

  it("a run of figures without goals passes", () => {
    expect(verdict([row("inbound", null)]).exitCode).toBe(0);
    expect(verdict([]).exitCode).toBe(0);
  });
});

// The bench's verdict: a figure with a goal either met it (ok: true) or missed it (ok:
// false, printed "NO"); figures without a goal (ok: null) are for reading only. A run
// with any missed goal exits non-zero and names them (issue 30, item 8), so a regression
// fails the run that measures it instead of scrolling past as a "NO" in the table.

/** One line of the bench's table. */
export type Row = { figure: string; app: string; baseline: string; ratio: string; goal: string; ok: boolean | null };

/** The figures that missed their goal. */
export function missedGoals(rows: readonly Row[]): Row[] {
  return rows.filter((row) => row.ok === false);
}

/** What the run prints at its end, and the exit code it ends with (1 when a goal was missed). */
export function verdict(rows: readonly Row[]): { exitCode: 0 | 1; message: string } {
  const missed = missedGoals(rows);
  if (missed.length === 0) {
    const goals = rows.filter((row) => row.ok === true).length;
    return { exitCode: 0, message: `every goal met (${goals} of ${goals})` };
  }
  const lines = missed.map((row) => `  ${row.figure}: ${row.app} (goal ${row.goal})`);
  return {
    exitCode: 1,
    message: [`${missed.length} goal${missed.length === 1 ? "" : "s"} missed:`, ...lines].join("\n"),
  };
}

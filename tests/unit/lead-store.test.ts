// The new lead's INSERT values are written out by name (newLeadValues), so this checks
// that each value lands in its column's place in NEW_LEAD_COLUMNS.
import { describe, expect, it } from "vitest";
import { NEW_LEAD_COLUMNS, newLeadValues, type NewLead } from "~/storage/leads/lead-store";

describe("newLeadValues", () => {
  it("gives each column's value in NEW_LEAD_COLUMNS order, through the dialect's time and boolean", () => {
    const createdAt = new Date("2026-03-01T10:00:00.123Z");
    const data = { name: "Ada" };
    // Every text column holds its own name, so a value in another column's place shows.
    const lead = Object.fromEntries(NEW_LEAD_COLUMNS.map((column) => [column, column])) as unknown as NewLead;
    Object.assign(lead, { schemaVersion: 7, data, isSpam: true, awaitingConfirmation: false, createdAt });
    const dialect = { time: (date: Date) => `time:${date.toISOString()}`, bool: (value: boolean) => `bool:${value}` };

    const expected = NEW_LEAD_COLUMNS.map((column) => {
      if (column === "schemaVersion") return 7;
      if (column === "data") return JSON.stringify(data);
      if (column === "isSpam") return "bool:true";
      if (column === "awaitingConfirmation") return "bool:false";
      if (column === "createdAt") return "time:2026-03-01T10:00:00.123Z";
      return column;
    });
    expect(newLeadValues(lead, dialect)).toEqual(expected);
  });
});

import ExcelJS from "exceljs";
import Papa from "papaparse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeadData, LeadValue } from "~/forms/schema/form-schema";
import { EXPORT_WRITER_THREADS, streamLeadsXlsx } from "~/leads/export/lead-export-xlsx.server";
import { streamLeadsCsv } from "~/leads/export/lead-export.server";
import { LeadFilterSchema } from "~/leads/lead-filters.server";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff, STAFF, type ApiClient } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;
let cookie: string;
let tricky: { id: string };
let other: { id: string };

const TRICKY_TEXTS = [
  'Hello, "world"',
  "line one\nline two\r\nline three",
  "Zoë Ünal — café crème, naïve",
  "🎉 party 👩‍💻 emoji",
  "  padded with spaces  ",
  "=SUM(A1:A9)",
  "+33 6 12 34 56 78",
  "-2+3",
  "@SUM(1)",
  "\tstarts with a tab",
  "\rstarts with a carriage return",
  "semi;colon",
  "plain",
];

const TRAILING = [
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "Referrer URL",
  "Landing page URL",
];

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  api = apiClient(server.url, cookie);
  // Version 1 had "notes"; version 2 dropped it, renamed "name" and added fields.
  tricky = await createForm("Tricky form", [
    [field("name", "Name"), field("email", "Email", "email"), field("notes", "Notes", "textarea")],
    [
      field("name", "Full name"),
      field("email", "Email", "email"),
      field("phone", "Phone", "tel"),
      field("count", "How many", "number"),
      field("agree", "Agrees", "checkbox"),
      field("tags", "Interests", "multiselect", { options: ["a, b", "=c", "d"] }),
    ],
  ]);
  other = await createForm("Other form", [[field("email", "E-mail", "email"), field("city", "City")]]);
  await createLeads(
    tricky.id,
    TRICKY_TEXTS.map((text, i) => ({
      schemaVersion: i % 2 === 0 ? 2 : 1,
      data:
        i % 2 === 0
          ? {
              name: text,
              email: `p${i}@example.com`,
              phone: text,
              count: i - 5,
              agree: i % 4 === 0,
              tags: ["a, b", "=c"],
            }
          : ({ name: text, email: `p${i}@example.com`, notes: text } as LeadData),
      createdAt: new Date(Date.UTC(2026, 2, 1, 12, i)),
      utmSource: i === 3 ? '=HYPERLINK("http://evil")' : "google",
      utmMedium: "cpc",
      utmCampaign: i < 6 ? "spring" : "summer",
      utmTerm: i === 1 ? 'kw, "quoted"' : null,
      utmContent: null,
      referrerUrl: "https://www.google.com/search?q=a,b",
      landingPageUrl: `https://example.com/landing?x=${i}`,
      isSpam: i === 12,
    })),
  );
  await createLeads(other.id, [
    {
      data: { email: "other@example.com", city: "Zürich" },
      createdAt: day("2026-03-01T12:30:00"),
      utmCampaign: "spring",
    },
  ]);
});
afterAll(async () => {
  await server?.stop();
});

/** What a cell of the export must hold for a stored value (CSV: formulas neutralised). */
function expectedText(value: LeadValue | string | null | undefined, format: "csv" | "xlsx" = "csv"): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const text = Array.isArray(value) ? value.join(", ") : value;
  if (format === "xlsx") return text;
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

async function storedLeads(
  where: Parameters<typeof db.lead.findMany>[0] extends infer A ? (A extends { where?: infer W } ? W : never) : never,
) {
  return db.lead.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: { form: { select: { name: true } } },
  });
}

function expectedRow(
  lead: Awaited<ReturnType<typeof storedLeads>>[number],
  keys: Array<string | null>,
  format: "csv" | "xlsx" = "csv",
): string[] {
  const data = lead.data as LeadData;
  return [
    lead.id,
    lead.createdAt.toISOString(),
    lead.form.name,
    lead.isSpam ? "spam" : lead.status,
    "",
    "",
    ...keys.map((key) => (key === null ? "" : expectedText(data[key], format))),
    ...[
      lead.utmSource,
      lead.utmMedium,
      lead.utmCampaign,
      lead.utmTerm,
      lead.utmContent,
      lead.referrerUrl,
      lead.landingPageUrl,
    ].map((value) => expectedText(value, format)),
  ];
}

async function download(query: string) {
  const res = await fetch(`${server.url}/api/leads/export?${query}`, { headers: { Cookie: cookie } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

function parseCsv(bytes: Buffer): string[][] {
  const text = bytes.toString("utf8");
  expect(text.startsWith("\uFEFF")).toBe(true);
  const parsed = Papa.parse<string[]>(text.slice(1), { header: false, skipEmptyLines: false });
  expect(parsed.errors).toEqual([]);
  // RFC 4180: the last record ends with CRLF, which papaparse reads as one empty line.
  expect(parsed.data[parsed.data.length - 1]).toEqual([""]);
  return parsed.data.slice(0, -1);
}

async function readXlsx(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets[0];
}

function sheetRows(sheet: ExcelJS.Worksheet, width: number): unknown[][] {
  const rows: unknown[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => {
    const cells: unknown[] = [];
    for (let c = 1; c <= width; c++) {
      const cell = row.getCell(c);
      expect(cell.type).not.toBe(ExcelJS.ValueType.Formula);
      cells.push(cell.value === null || cell.value === undefined ? "" : cell.value);
    }
    rows.push(cells);
  });
  return rows;
}

const LEADING = ["Lead ID", "Submitted at (UTC)", "Form", "Status", "Owner", "Tags"];
const TRICKY_HEADERS = [
  ...LEADING,
  "Full name",
  "Email",
  "Notes (removed)",
  "Phone",
  "How many",
  "Agrees",
  "Interests",
  ...TRAILING,
];
/** The tricky form's headers without its removed field. */
const CURRENT_TRICKY_HEADERS = TRICKY_HEADERS.filter((header) => !header.endsWith("(removed)"));
const TRICKY_KEYS = ["name", "email", "notes", "phone", "count", "agree", "tags"];

describe("CSV export", () => {
  it("parses back to exactly the stored leads: quotes, commas, newlines, accents, emoji; formulas neutralised", async () => {
    const { res, bytes } = await download(`format=csv&formId=${tricky.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="leads-tricky-form-${today}.csv"`);
    const rows = parseCsv(bytes);
    expect(rows[0]).toEqual(TRICKY_HEADERS);
    const stored = await storedLeads({ formId: tricky.id, isSpam: false });
    expect(stored).toHaveLength(TRICKY_TEXTS.length - 1);
    expect(rows.slice(1)).toEqual(stored.map((lead) => expectedRow(lead, TRICKY_KEYS)));
    // Spot checks that do not go through expectedText.
    const flat = rows.flat();
    expect(flat).toContain("line one\nline two\r\nline three");
    expect(flat).toContain("🎉 party 👩‍💻 emoji");
    expect(flat).toContain("'=SUM(A1:A9)");
    expect(flat).toContain("'+33 6 12 34 56 78");
    expect(flat).toContain("'-2+3");
    expect(flat).toContain("'@SUM(1)");
    expect(flat).toContain("'\tstarts with a tab");
    expect(flat).toContain("'\rstarts with a carriage return");
    expect(flat).toContain('\'=HYPERLINK("http://evil")');
    expect(flat).toContain("a, b, =c");
    expect(flat).not.toContain("=SUM(A1:A9)");
    // Numbers stay numbers (a negative number is not a formula).
    expect(flat).toContain("-5");
  });

  it("encodes UTF-8 with a byte order mark so spreadsheets read accents right", async () => {
    const { bytes } = await download(`format=csv&formId=${tricky.id}`);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.includes(Buffer.from("Zoë Ünal", "utf8"))).toBe(true);
  });

  it("exports exactly the filtered view, in the list's order, for each filter", async () => {
    const queries = [
      `formId=${tricky.id}&utm_campaign=spring`,
      `formId=${tricky.id}&q=CAF`,
      `q=%25`,
      `q=_`,
      `q=a%2C%20b`,
      `utm_source=google&utm_medium=cpc`,
      `from=2026-03-01&to=2026-03-01`,
      `from=2026-03-02`,
      `spam=true`,
      `spam=all`,
      `spam=all&utm_campaign=summer`,
    ];
    for (const query of queries) {
      const list = await api("GET", `/api/leads?limit=500&${query}`);
      expect(list.status, query).toBe(200);
      const { bytes } = await download(`format=csv&${query}`);
      const ids = parseCsv(bytes)
        .slice(1)
        .map((row) => row[0]);
      expect(ids, query).toEqual(list.body.leads.map((lead: { id: string }) => lead.id));
    }
  });

  it("without a form, has the fields of every form in the view, grouped by form", async () => {
    const { res, bytes } = await download("format=csv&utm_campaign=spring");
    expect(res.headers.get("content-disposition")).toMatch(
      /filename="leads-utm_campaign-spring-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const rows = parseCsv(bytes);
    expect(rows[0]).toEqual([
      ...LEADING,
      "Tricky form: Full name",
      "Tricky form: Email",
      "Tricky form: Notes (removed)",
      "Tricky form: Phone",
      "Tricky form: How many",
      "Tricky form: Agrees",
      "Tricky form: Interests",
      "Other form: E-mail",
      "Other form: City",
      ...TRAILING,
    ]);
    const otherRow = rows.find((row) => row[2] === "Other form")!;
    expect(otherRow.slice(6, 15)).toEqual(["", "", "", "", "", "", "", "other@example.com", "Zürich"]);
  });

  it("has only the header when nothing matches, without the removed fields no lead fills", async () => {
    const { res, bytes } = await download(`format=csv&formId=${tricky.id}&from=2030-01-01`);
    expect(res.status).toBe(200);
    expect(parseCsv(bytes)).toEqual([CURRENT_TRICKY_HEADERS]);
  });
});

describe("Excel export", () => {
  it("reads back with exceljs to exactly the stored leads, formula-like text as plain text cells, header bold and frozen", async () => {
    const { res, bytes } = await download(`format=xlsx&formId=${tricky.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="leads-tricky-form-\d{4}-\d{2}-\d{2}\.xlsx"$/,
    );
    const sheet = await readXlsx(bytes);
    const rows = sheetRows(sheet, TRICKY_HEADERS.length);
    expect(rows[0]).toEqual(TRICKY_HEADERS);
    const stored = await storedLeads({ formId: tricky.id, isSpam: false });
    // Times, numbers and booleans are typed cells in Excel; text is as stored (a string
    // cell is never a formula, so it needs no apostrophe), with Excel's LF for line breaks.
    const expected = stored.map((lead) =>
      expectedRow(lead, TRICKY_KEYS, "xlsx").map((text, i) => {
        if (i === 1) return lead.createdAt;
        const key = TRICKY_KEYS[i - LEADING.length];
        const value = key ? (lead.data as LeadData)[key] : undefined;
        return typeof value === "number" || typeof value === "boolean" ? value : text.replace(/\r\n?/g, "\n");
      }),
    );
    expect(rows.slice(1)).toEqual(expected);
    expect(rows.flat()).toContain("=SUM(A1:A9)");
    expect(rows.flat()).not.toContain("'=SUM(A1:A9)");
    let formulaLike = 0;
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.value === "=SUM(A1:A9)") {
          formulaLike++;
          expect(cell.type).toBe(ExcelJS.ValueType.String);
        }
        expect(cell.type).not.toBe(ExcelJS.ValueType.Formula);
      }),
    );
    expect(formulaLike).toBeGreaterThan(0);
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(sheet.getRow(2).getCell(1).font?.bold).toBeFalsy();
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    for (let c = 1; c <= TRICKY_HEADERS.length; c++) expect(sheet.getColumn(c).width).toBeGreaterThanOrEqual(8);
    expect(sheet.getColumn(1).width).toBeGreaterThanOrEqual("Lead ID".length);
  });

  it("keeps characters XML forbids out of the file, so a lead stored with U+FFFE or U+FFFF cannot break it", async () => {
    // Written straight to the database, as leads stored before the input policy may be.
    const form = await createForm("XML hostile", [[field("note", "Note")]]);
    await createLeads(form.id, [{ data: { note: "a\uFFFEb\uFFFFc\u0001d" }, utmSource: "x\uFFFEy" }]);
    const { res, bytes } = await download(`format=xlsx&formId=${form.id}`);
    expect(res.status).toBe(200);
    const sheet = await readXlsx(bytes); // exceljs refused such files before: "invalid XML"
    const rows = sheetRows(sheet, LEADING.length + 2);
    expect(rows[1][LEADING.length]).toBe("abcd");
    const sourceColumn = (rows[0] as string[]).indexOf("utm_source") + 1;
    expect(sourceColumn).toBeGreaterThan(0);
    expect(sheet.getRow(2).getCell(sourceColumn).value).toBe("xy");
  });

  it("exports the same leads as the CSV for a filter", async () => {
    const query = "spam=all&utm_campaign=summer";
    const csvIds = parseCsv((await download(`format=csv&${query}`)).bytes)
      .slice(1)
      .map((row) => row[0]);
    const sheet = await readXlsx((await download(`format=xlsx&${query}`)).bytes);
    const xlsxIds = sheetRows(sheet, 1)
      .slice(1)
      .map((row) => row[0]);
    expect(csvIds.length).toBeGreaterThan(0);
    expect(xlsxIds).toEqual(csvIds);
  });

  it("writes more Excel exports at once than there are writer threads, each one whole", async () => {
    // The exports beyond the threads wait for one (lead-export-xlsx.server.ts); none is lost or mixed.
    const downloads = await Promise.all(
      Array.from({ length: EXPORT_WRITER_THREADS * 2 + 1 }, (_, i) =>
        download(i % 2 === 0 ? `format=xlsx&formId=${tricky.id}` : `format=xlsx&formId=${other.id}`),
      ),
    );
    const expected = {
      [tricky.id]: (await storedLeads({ formId: tricky.id, isSpam: false })).map((lead) => lead.id),
      [other.id]: (await storedLeads({ formId: other.id, isSpam: false })).map((lead) => lead.id),
    };
    for (const [i, { res, bytes }] of downloads.entries()) {
      expect(res.status).toBe(200);
      const ids = sheetRows(await readXlsx(bytes), 1)
        .slice(1)
        .map((row) => row[0]);
      expect(ids).toEqual(expected[i % 2 === 0 ? tricky.id : other.id]);
    }
  });

  it("is a valid workbook with only a header when nothing matches", async () => {
    const { res, bytes } = await download(`format=xlsx&formId=${tricky.id}&from=2030-01-01`);
    expect(res.status).toBe(200);
    const sheet = await readXlsx(bytes);
    expect(sheetRows(sheet, CURRENT_TRICKY_HEADERS.length)).toEqual([CURRENT_TRICKY_HEADERS]);
  });
});

describe("typed Excel cells", () => {
  let typed: { id: string };
  const TYPED_HEADERS = [
    ...LEADING,
    "Name",
    "Visit on",
    // Removed fields stay beside the field they followed.
    "Seats (removed)",
    "Old date (removed)",
    "Budget",
    ...TRAILING,
  ];

  beforeAll(async () => {
    // Version 1 had seats (a number) and an old date; version 2 dropped both. "visit" was
    // text in version 1, so old leads may hold any text there.
    typed = await createForm("Typed form", [
      [
        field("name", "Name"),
        field("visit", "Visit", "text"),
        field("seats", "Seats", "number"),
        field("old", "Old date", "date"),
      ],
      [field("name", "Name"), field("visit", "Visit on", "date"), field("budget", "Budget", "number")],
    ]);
    await createLeads(typed.id, [
      {
        schemaVersion: 2,
        data: { name: "New lead", visit: "2026-04-15", budget: 1250.5 },
        createdAt: new Date("2026-03-05T10:20:30.456Z"),
      },
      {
        schemaVersion: 1,
        data: { name: "Old lead", visit: "next week", seats: 3, old: "2025-12-31" },
        createdAt: new Date("2026-03-04T23:59:59.000Z"),
      },
      {
        schemaVersion: 1,
        data: { name: "Odd lead", visit: "2026-02-30", seats: "0612", budget: "Infinity" } as unknown as LeadData,
        createdAt: new Date("2026-03-03T00:00:00.000Z"),
      },
    ]);
  });

  it("writes the submission time as a UTC date-time cell, date fields as date cells and numbers as numbers", async () => {
    const { res, bytes } = await download(`format=xlsx&formId=${typed.id}`);
    expect(res.status).toBe(200);
    const sheet = await readXlsx(bytes);
    expect(sheetRows(sheet, TYPED_HEADERS.length)[0]).toEqual(TYPED_HEADERS);
    const column = (header: string) => TYPED_HEADERS.indexOf(header) + 1;
    const [newest, old, odd] = [2, 3, 4].map((r) => sheet.getRow(r));

    const submitted = newest.getCell(column("Submitted at (UTC)"));
    expect(submitted.type).toBe(ExcelJS.ValueType.Date);
    expect(submitted.numFmt).toBe("yyyy-mm-dd hh:mm:ss");
    expect(submitted.value).toEqual(new Date("2026-03-05T10:20:30.456Z"));

    const visit = newest.getCell(column("Visit on"));
    expect(visit.type).toBe(ExcelJS.ValueType.Date);
    expect(visit.numFmt).toBe("yyyy-mm-dd");
    expect(visit.value).toEqual(new Date("2026-04-15T00:00:00.000Z"));

    const budget = newest.getCell(column("Budget"));
    expect(budget.type).toBe(ExcelJS.ValueType.Number);
    expect(budget.value).toBe(1250.5);

    // A removed field keeps its type; text stored before a field became a date stays text.
    expect(old.getCell(column("Seats (removed)")).type).toBe(ExcelJS.ValueType.Number);
    expect(old.getCell(column("Seats (removed)")).value).toBe(3);
    expect(old.getCell(column("Old date (removed)")).type).toBe(ExcelJS.ValueType.Date);
    expect(old.getCell(column("Old date (removed)")).value).toEqual(new Date("2025-12-31T00:00:00.000Z"));
    expect(old.getCell(column("Visit on")).type).toBe(ExcelJS.ValueType.String);
    expect(old.getCell(column("Visit on")).value).toBe("next week");
    // Not a real day, and a number that would lose its leading zero: both stay text.
    expect(odd.getCell(column("Visit on")).value).toBe("2026-02-30");
    expect(odd.getCell(column("Seats (removed)")).type).toBe(ExcelJS.ValueType.String);
    expect(odd.getCell(column("Seats (removed)")).value).toBe("0612");
    expect(odd.getCell(column("Budget")).value).toBe("Infinity");
    expect(odd.getCell(column("Submitted at (UTC)")).value).toEqual(new Date("2026-03-03T00:00:00.000Z"));
    // Text cells carry no number format of their own.
    expect(newest.getCell(column("Name")).type).toBe(ExcelJS.ValueType.String);
    expect(newest.getCell(column("Name")).numFmt).toBeFalsy();
  });

  it("keeps the CSV's values as text: ISO 8601 times, days as stored, with the same headers", async () => {
    const { bytes } = await download(`format=csv&formId=${typed.id}`);
    const rows = parseCsv(bytes);
    expect(rows[0]).toEqual(TYPED_HEADERS);
    const at = (row: string[], header: string) => row[TYPED_HEADERS.indexOf(header)];
    expect(at(rows[1], "Submitted at (UTC)")).toBe("2026-03-05T10:20:30.456Z");
    expect(at(rows[1], "Visit on")).toBe("2026-04-15");
    expect(at(rows[1], "Budget")).toBe("1250.5");
    expect(at(rows[3], "Budget")).toBe("Infinity");
    expect(at(rows[2], "Visit on")).toBe("next week");
    expect(at(rows[2], "Old date (removed)")).toBe("2025-12-31");
    expect(at(rows[3], "Seats (removed)")).toBe("0612");
  });

  it("prefixes a removed field's header with its form in an export without a form", async () => {
    const { bytes } = await download(`format=csv&from=2026-03-03&to=2026-03-05&q=lead`);
    const headers = parseCsv(bytes)[0];
    expect(headers).toContain("Typed form: Seats (removed)");
    expect(headers).toContain("Typed form: Visit on");
  });
});

describe("removed fields' columns", () => {
  let trimmed: { id: string };

  beforeAll(async () => {
    // Version 1 had a fax and a note; version 2 dropped both. Only an old lead's note, and a
    // spam lead's fax, were ever filled: blank text, null and an empty list are no value.
    trimmed = await createForm("Trimmed form", [
      [field("name", "Name"), field("fax", "Fax"), field("note", "Note"), field("pets", "Pets", "multiselect")],
      [field("name", "Name")],
    ]);
    await createLeads(trimmed.id, [
      { schemaVersion: 2, data: { name: "New lead" }, createdAt: day("2026-05-02T10:00:00"), utmCampaign: "trimmed" },
      {
        schemaVersion: 1,
        data: { name: "Old lead", fax: "", note: "Call after six", pets: [] },
        createdAt: day("2026-04-01T10:00:00"),
        utmCampaign: "trimmed",
      },
      {
        schemaVersion: 1,
        data: { name: "Quiet lead", fax: null, note: "" } as unknown as LeadData,
        createdAt: day("2026-04-01T09:00:00"),
        utmCampaign: "trimmed",
      },
      {
        schemaVersion: 1,
        data: { name: "Spam lead", fax: "555-0100" },
        createdAt: day("2026-04-01T08:00:00"),
        isSpam: true,
        utmCampaign: "trimmed",
      },
    ]);
  });

  async function headersOf(query: string) {
    const csv = parseCsv((await download(`format=csv&${query}`)).bytes);
    const sheet = await readXlsx((await download(`format=xlsx&${query}`)).bytes);
    // Both formats have the same columns.
    expect(sheetRows(sheet, csv[0].length)[0], query).toEqual(csv[0]);
    return csv[0].filter((header) => !LEADING.includes(header) && !TRAILING.includes(header));
  }

  it("shows a removed field only when an exported lead holds a value for it", async () => {
    expect(await headersOf(`formId=${trimmed.id}`)).toEqual(["Name", "Note (removed)"]);
    const rows = parseCsv((await download(`format=csv&formId=${trimmed.id}`)).bytes);
    expect(rows.find((row) => row.includes("Old lead"))).toContain("Call after six");
  });

  it("decides per export: the filtered leads, spam included only when asked for", async () => {
    expect(await headersOf(`formId=${trimmed.id}&from=2026-05-01`)).toEqual(["Name"]);
    expect(await headersOf(`formId=${trimmed.id}&spam=all`)).toEqual(["Name", "Fax (removed)", "Note (removed)"]);
    expect(await headersOf(`formId=${trimmed.id}&spam=true`)).toEqual(["Name", "Fax (removed)"]);
    expect(await headersOf(`formId=${trimmed.id}&q=quiet`)).toEqual(["Name"]);
  });

  it("drops the empty removed columns of each form in an export without a form", async () => {
    const headers = await headersOf("utm_campaign=trimmed");
    expect(headers).toEqual(["Trimmed form: Name", "Trimmed form: Note (removed)"]);
  });
});

describe("status, owner and tags", () => {
  let worked: { id: string };
  let leadIds: string[];
  let staffId: string;
  let colleagueId: string;
  const WORKED_HEADERS = [...LEADING, "Email", ...TRAILING];

  beforeAll(async () => {
    worked = await createForm("Worked leads", [[field("email", "Email", "email")]]);
    await createLeads(
      worked.id,
      Array.from({ length: 5 }, (_, i) => ({
        data: { email: `w${i}@example.com` },
        createdAt: new Date(Date.UTC(2026, 4, 1, 12, i)),
      })),
    );
    // Newest first, as the export writes them.
    leadIds = (await storedLeads({ formId: worked.id })).map((lead) => lead.id);
    staffId = (await db.user.findUniqueOrThrow({ where: { email: STAFF.email } })).id;
    colleagueId = (
      await createOrResetUser({ email: "ana@example.com", password: STAFF.password, name: "Ana Colleague" })
    ).user.id;
    const patches = [
      { status: "qualified", ownerId: staffId, tags: ["vip", "=cmd"] },
      { status: "contacted", ownerId: colleagueId, tags: ["vip"] },
      { status: "spam" },
      { tags: ["cold"] },
    ];
    for (const [i, patch] of patches.entries()) {
      const res = await api("PATCH", `/api/leads/${leadIds[i]}`, patch);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  /** Status, Owner and Tags of each exported lead, by id. */
  function workColumns(rows: unknown[][]): Record<string, unknown[]> {
    return Object.fromEntries(rows.slice(1).map((row) => [row[0], row.slice(3, 6)]));
  }

  it("writes each lead's status as staff see it, its owner's name (or email) and its tags, in both formats", async () => {
    const csv = parseCsv((await download(`format=csv&formId=${worked.id}&spam=all`)).bytes);
    expect(csv[0]).toEqual(WORKED_HEADERS);
    const expected = {
      [leadIds[0]]: ["qualified", STAFF.email, "'=cmd, vip"],
      [leadIds[1]]: ["contacted", "Ana Colleague", "vip"],
      [leadIds[2]]: ["spam", "", ""],
      [leadIds[3]]: ["new", "", "cold"],
      [leadIds[4]]: ["new", "", ""],
    };
    expect(workColumns(csv)).toEqual(expected);

    const sheet = await readXlsx((await download(`format=xlsx&formId=${worked.id}&spam=all`)).bytes);
    const xlsx = sheetRows(sheet, WORKED_HEADERS.length);
    expect(xlsx[0]).toEqual(WORKED_HEADERS);
    expect(workColumns(xlsx)).toEqual({ ...expected, [leadIds[0]]: ["qualified", STAFF.email, "=cmd, vip"] });
  });

  it("exports exactly the leads of each new filter, as the list shows them", async () => {
    const queries = [
      "status=qualified",
      "status=new",
      "status=spam",
      `ownerId=${colleagueId}`,
      "ownerId=mine",
      "ownerId=none",
      "tag=vip",
      "tag=VIP",
      "spam=all&tag=cold",
    ];
    for (const query of queries) {
      const list = await api("GET", `/api/leads?limit=500&formId=${worked.id}&${query}`);
      expect(list.status, query).toBe(200);
      const ids = parseCsv((await download(`format=csv&formId=${worked.id}&${query}`)).bytes)
        .slice(1)
        .map((row) => row[0]);
      expect(ids, query).toEqual(list.body.leads.map((lead: { id: string }) => lead.id));
    }
    const mine = parseCsv((await download(`format=csv&ownerId=mine`)).bytes).slice(1);
    expect(mine.map((row) => row[0])).toEqual([leadIds[0]]);
    const vip = parseCsv((await download(`format=csv&tag=vip`)).bytes).slice(1);
    expect(vip.map((row) => row[0])).toEqual([leadIds[0], leadIds[1]]);
  });

  it("exports exactly the chosen leads of ?ids=, in both formats, whatever other leads exist", async () => {
    const chosen = [leadIds[4], leadIds[1]];
    const { res, bytes } = await download(`format=csv&ids=${chosen.join(",")}`);
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="leads-selection-2-${today}.csv"`);
    const csvIds = parseCsv(bytes)
      .slice(1)
      .map((row) => row[0]);
    expect(csvIds).toEqual([leadIds[1], leadIds[4]]);
    const sheet = await readXlsx((await download(`format=xlsx&ids=${chosen.join(",")}%2Cnot-a-lead`)).bytes);
    expect(
      sheetRows(sheet, 1)
        .slice(1)
        .map((row) => row[0]),
    ).toEqual([leadIds[1], leadIds[4]]);
    // A spam lead among the chosen ones is left out unless spam is asked for, as in the list.
    const withSpam = parseCsv((await download(`format=csv&ids=${leadIds[2]},${leadIds[3]}&spam=all`)).bytes);
    expect(withSpam.slice(1).map((row) => row[0])).toEqual([leadIds[2], leadIds[3]]);
  });
});

describe("export file names", () => {
  const today = new Date().toISOString().slice(0, 10);
  async function fileName(query: string) {
    const { res } = await download(query);
    expect(res.status, query).toBe(200);
    return /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")![1];
  }

  it("names the form, then each filter as name and value, then the day", async () => {
    expect(await fileName(`format=csv&formId=${tricky.id}&utm_source=google`)).toBe(
      `leads-tricky-form-utm_source-google-${today}.csv`,
    );
    expect(await fileName(`format=xlsx&formId=${tricky.id}&from=2026-03-01&to=2026-03-31&spam=all`)).toBe(
      `leads-tricky-form-from-2026-03-01-to-2026-03-31-spam-all-${today}.xlsx`,
    );
    expect(await fileName("format=csv&status=qualified&ownerId=mine&tag=Hot%20Leads")).toBe(
      `leads-status-qualified-ownerid-mine-tag-hot-leads-${today}.csv`,
    );
    expect(await fileName("format=csv")).toBe(`leads-${today}.csv`);
  });

  it("names only the filters set: ticked rows are a selection, spam only when chosen", async () => {
    // The shape of the list's "Export the selection" link (spam=all, so ticked spam comes too).
    expect(await fileName(`format=csv&spam=all&ids=one,two,three`)).toBe(`leads-selection-3-${today}.csv`);
    expect(await fileName("format=csv&spam=false")).toBe(`leads-${today}.csv`);
    expect(await fileName("format=xlsx&spam=true")).toBe(`leads-spam-true-${today}.xlsx`);
    expect(await fileName("format=csv&spam=all&utm_campaign=spring")).toBe(
      `leads-utm_campaign-spring-spam-all-${today}.csv`,
    );
  });

  it("keeps the name short and plain ASCII whatever the filters hold", async () => {
    const long = encodeURIComponent("Été à São Paulo — “quoted” / slashes \\ and 🎉 ".repeat(4));
    const name = await fileName(
      `format=csv&formId=${tricky.id}&utm_source=${long}&utm_medium=${long}&utm_campaign=${long}&q=${long}`,
    );
    expect(name.length).toBeLessThanOrEqual(120);
    expect(name).toMatch(
      /^leads-tricky-form-utm_source-ete-a-sao-paulo-quoted-slashes-and-[a-z0-9_-]*\d{4}-\d{2}-\d{2}\.csv$/,
    );
    expect(name.endsWith(`-${today}.csv`)).toBe(true);
    expect(await fileName("format=csv&q=%25%25")).toBe(`leads-q-${today}.csv`);
  });
});

describe("export requests", () => {
  it.each([
    ["format", "formId=x"],
    ["format", "format=pdf"],
    ["from", "format=csv&from=2026-13-01"],
    ["spam", "format=xlsx&spam=yes"],
    ["to", "format=csv&from=2026-03-02&to=2026-03-01"],
    ["status", "format=csv&status=maybe"],
    ["tag", `format=csv&tag=${"x".repeat(41)}`],
    ["ids", `format=csv&ids=${Array.from({ length: 501 }, (_, i) => `id${i}`).join(",")}`],
  ])("refuses a bad %s with 422 naming it (%s)", async (param, query) => {
    const res = await api("GET", `/api/leads/export?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((detail: { path: string }) => detail.path)).toContain(param);
  });

  it("stops reading when the client goes away, and the server carries on", async () => {
    const many = await createForm("Many leads", [[field("text", "Text", "textarea")]]);
    await createLeads(
      many.id,
      Array.from({ length: 6000 }, (_, i) => ({ data: { text: `${i} ${"lorem ipsum ".repeat(20)}` } })),
    );
    for (const format of ["csv", "xlsx"]) {
      const controller = new AbortController();
      const res = await fetch(`${server.url}/api/leads/export?format=${format}&formId=${many.id}`, {
        headers: { Cookie: cookie },
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.read().catch(() => undefined);
    }
    const health = await api("GET", "/healthz");
    expect(health.status).toBe(200);
    const list = await api("GET", `/api/leads?formId=${many.id}&limit=1`);
    expect(list.status).toBe(200);
    expect(server.output()).not.toMatch(/failed|Error/);
  });
});

describe("streamLeadsCsv", () => {
  it("reads no further page once its request is aborted", async () => {
    const form = await createForm("Abortable", [[field("n", "N", "number")]]);
    await createLeads(
      form.id,
      Array.from({ length: 200 }, (_, i) => ({ data: { n: i } })),
    );
    const filters = LeadFilterSchema.parse({ formId: form.id });
    const controller = new AbortController();
    const stream = await streamLeadsCsv(filters, { signal: controller.signal, pageSize: 10 });
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value); // the header
    text += decoder.decode((await reader.read()).value); // the first page
    controller.abort();
    const rest = await reader.read().then(
      (result) => (result.done ? "ended" : "more"),
      () => "aborted",
    );
    expect(rest).toBe("aborted");
    // The header, and at most the pages already asked for before the abort.
    expect(text.split("\r\n").length - 2).toBeLessThanOrEqual(20);
  });

  it("reads the next page only when the previous one has been taken", async () => {
    const form = await createForm("Lazy", [[field("n", "N", "number")]]);
    await createLeads(
      form.id,
      Array.from({ length: 100 }, (_, i) => ({ data: { n: i }, createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)) })),
    );
    const filters = LeadFilterSchema.parse({ formId: form.id });
    const stream = await streamLeadsCsv(filters, { pageSize: 10 });
    const reader = stream.getReader();
    const header = await reader.read();
    expect(new TextDecoder().decode(header.value)).toContain("Lead ID");
    // Leads deleted after the first page was read are not in the rest of the file.
    const first = await reader.read();
    await db.lead.deleteMany({ where: { formId: form.id, createdAt: { lt: new Date(Date.UTC(2024, 0, 1, 0, 50)) } } });
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    const rows = (new TextDecoder().decode(first.value) + rest).trim().split("\r\n");
    // The 50 newest; at most one page read ahead of the client could hold deleted ones.
    expect(rows.length).toBeGreaterThanOrEqual(50);
    expect(rows.length).toBeLessThanOrEqual(60);
  });
});

describe("streamLeadsXlsx", () => {
  it("goes on in another sheet, with the header again, when a sheet is full", async () => {
    const form = await createForm("Long", [[field("n", "N", "number")]]);
    await createLeads(
      form.id,
      Array.from({ length: 7 }, (_, i) => ({ data: { n: i }, createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)) })),
    );
    const filters = LeadFilterSchema.parse({ formId: form.id });
    // Excel's own limit is 1,048,575 rows under the header; three shows the same turn.
    const stream = await streamLeadsXlsx(filters, { rowsPerSheet: 3, pageSize: 2 });
    const bytes = Buffer.from(await new Response(stream).arrayBuffer());
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(["Leads", "Leads 2", "Leads 3"]);
    const numbers = workbook.worksheets.map((sheet) => {
      const rows = sheetRows(sheet, 7);
      expect(rows[0][0]).toBe("Lead ID");
      expect(sheet.getColumn(1).width).toBe(workbook.worksheets[0].getColumn(1).width);
      return rows.slice(1).map((row) => row[6]);
    });
    // Newest first, every lead once, across the three sheets.
    expect(numbers).toEqual([[6, 5, 4], [3, 2, 1], [0]]);
  });
});

// 100,000 leads exported over HTTP: the server's memory must not grow with the rows.
import fs from "node:fs";
import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_WRITER_THREADS } from "~/leads/export/lead-export-xlsx.server";
import { db } from "~/storage/db.server";
import { loginAsStaff } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

const LEADS = 100_000;
const MB = 1024 * 1024;

let server: TestServer;
let cookie: string;
let formId: string;

beforeAll(async () => {
  const form = await createForm("Big form", [
    [
      field("name", "Name"),
      field("email", "Email", "email"),
      field("company", "Company"),
      field("message", "Message", "textarea"),
    ],
  ]);
  formId = form.id;
  const start = Date.UTC(2025, 0, 1);
  const leads = Array.from({ length: LEADS }, (_, i) => ({
    data: {
      name: `Person ${i} Zoë`,
      email: `person${i}@example.com`,
      company: `Company ${i % 500}, "Ltd"`,
      message: `Hello, I would like to know more about your product.\nReference ${i}.`,
    },
    createdAt: new Date(start + i * 1000),
    utmSource: ["google", "newsletter", "twitter"][i % 3],
    utmMedium: "cpc",
    utmCampaign: `campaign-${i % 10}`,
    referrerUrl: "https://www.google.com/search?q=leads",
    landingPageUrl: `https://example.com/landing?ref=${i}`,
  }));
  for (let i = 0; i < LEADS; i += 20_000) await createLeads(formId, leads.slice(i, i + 20_000));
  server = await startServer();
  cookie = await loginAsStaff(server.url);
}, 240_000);
afterAll(async () => {
  await server?.stop();
});

function residentBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)![1]) * 1024;
}

/** Downloads an export while sampling the server's resident memory. */
async function measuredDownload(query: string) {
  const pid = server.process.pid!;
  const before = residentBytes(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid));
  }, 20);
  try {
    const res = await fetch(`${server.url}/api/leads/export?${query}`, { headers: { Cookie: cookie } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const chunks: Buffer[] = [];
    let size = 0;
    let chunksWhenFirstArrived = -1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (chunksWhenFirstArrived < 0) chunksWhenFirstArrived = chunks.length;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
    }
    peak = Math.max(peak, residentBytes(pid));
    return { body: Buffer.concat(chunks, size), chunks: chunks.length, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe(`exporting ${LEADS.toLocaleString("en")} leads`, () => {
  it("warms up on an export of each format", { timeout: 120_000 }, async () => {
    // Runs the code paths once (here on the 86,400 leads of one day), so the measurements
    // below see the export's own memory, not the process's first-use growth.
    for (const format of ["csv", "xlsx"]) {
      const res = await measuredDownload(`format=${format}&formId=${formId}&from=2025-01-01&to=2025-01-01`);
      expect(res.body.length).toBeGreaterThan(0);
    }
  });

  it("streams the CSV with the server's memory growing by less than 100 MB", async () => {
    const { body, chunks, growth } = await measuredDownload(`format=csv&formId=${formId}`);
    const text = body.toString("utf8");
    // Header + one record per lead; each record has one embedded newline (the message).
    expect(text.match(/\r\n/g)?.length).toBe(LEADS + 1);
    expect(text).toContain("Person 99999 Zoë");
    expect(text).toContain("Person 0 Zoë");
    expect(chunks).toBeGreaterThan(10);
    expect(growth).toBeLessThan(100 * MB);
  }, 120_000);

  it("streams the Excel file with the server's memory growing by less than 100 MB", async () => {
    const { body, chunks, growth } = await measuredDownload(`format=xlsx&formId=${formId}`);
    expect(body.subarray(0, 2).toString("latin1")).toBe("PK");
    // The zip's end-of-central-directory record closes a complete file.
    expect(body.includes(Buffer.from([0x50, 0x4b, 0x05, 0x06]))).toBe(true);
    expect(chunks).toBeGreaterThan(10);
    expect(growth).toBeLessThan(100 * MB);
  }, 180_000);

  it("frees the writer threads of Excel downloads stopped midway or while they waited for one", async () => {
    // Every thread busy with a download that sent its first bytes and is read no further, as
    // many more waiting for a thread, then all of them stopped. Had a stopped download kept its
    // thread (or taken one later and waited for ever), the whole one after them would not start.
    const url = `${server.url}/api/leads/export?format=xlsx&formId=${formId}`;
    const holding = await Promise.all(
      Array.from({ length: EXPORT_WRITER_THREADS }, async () => {
        const controller = new AbortController();
        const res = await fetch(url, { headers: { Cookie: cookie }, signal: controller.signal });
        const reader = res.body!.getReader();
        expect((await reader.read()).done).toBe(false);
        return { controller, reader };
      }),
    );
    const waiting = Array.from({ length: EXPORT_WRITER_THREADS }, () => {
      const controller = new AbortController();
      const stopped = fetch(url, { headers: { Cookie: cookie }, signal: controller.signal }).then(
        (res) => res.body?.cancel(),
        () => undefined,
      );
      return { controller, stopped };
    });
    // Long enough for the waiting ones to reach the server and queue, well short of an export.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const { controller } of waiting) controller.abort();
    await Promise.all(waiting.map(({ stopped }) => stopped));
    for (const { controller, reader } of holding) {
      controller.abort();
      await reader.read().catch(() => undefined);
    }
    const { body } = await measuredDownload(`format=xlsx&formId=${formId}&from=2025-01-01&to=2025-01-01`);
    let rows = 0;
    const workbook = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([body]), {});
    for await (const sheet of workbook) for await (const _row of sheet) rows++;
    expect(rows - 1).toBe(86_400);
    expect(server.output()).not.toMatch(/writer failed/);
  }, 120_000);

  it("sends the first bytes before it has read the last row", async () => {
    for (const format of ["csv", "xlsx"]) {
      const res = await fetch(`${server.url}/api/leads/export?format=${format}&formId=${formId}`, {
        headers: { Cookie: cookie },
      });
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      // The first bytes are here; now the oldest half of the leads turns into spam. Had
      // the server read every row before sending, they would still all be in the file.
      const { count } = await db.lead.updateMany({
        where: { formId, createdAt: { lt: new Date(Date.UTC(2025, 0, 1) + (LEADS / 2) * 1000) } },
        data: { isSpam: true },
      });
      expect(count).toBe(LEADS / 2);
      const chunks = [Buffer.from(first.value!)];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(Buffer.from(value));
      }
      const body = Buffer.concat(chunks);
      if (format === "csv") {
        const records = body.toString("utf8").match(/\r\n/g)!.length - 1;
        expect(records).toBeLessThan(LEADS);
        expect(records).toBeGreaterThanOrEqual(LEADS / 2);
      } else {
        let rows = 0;
        const workbook = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([body]), {});
        for await (const sheet of workbook) for await (const _row of sheet) rows++;
        expect(rows - 1).toBeLessThan(LEADS);
        expect(rows - 1).toBeGreaterThanOrEqual(LEADS / 2);
      }
      await db.lead.updateMany({ where: { formId }, data: { isSpam: false } });
    }
  }, 180_000);
});

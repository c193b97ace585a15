// File uploads with a lead (issue 31 item 4, decision 064): a multipart submission streamed
// into the database, checked by its bytes, linked by the lead's own write; downloaded only as
// an attachment by staff; listed alike in GET /api/leads/:id and the lead.created webhook;
// and nothing left behind by a refused, oversized or cut-off upload.
import net from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { exeBytes, formWithFile, pdfBytes, pngBytes, uploadForm } from "../support/uploads";
import { startReceiver, type Receiver } from "../support/webhook-receiver";

let server: TestServer;
let receiver: Receiver;
let call: ApiClient;
let cookie: string;
let formId: string;

beforeAll(async () => {
  [server, receiver] = await Promise.all([
    startServer({
      SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOW_PRIVATE: "true",
      WEBHOOK_POLL_MS: "200",
    }),
    startReceiver(),
  ]);
  cookie = await loginAsStaff(server.url);
  call = apiClient(server.url, cookie);
  formId = await newForm({ name: "Uploads", fields: formWithFile() });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

const MiB = 1024 * 1024;
/** As the embed posts: JSON answers. */
const submit = (body: FormData | Record<string, unknown>) =>
  apiClient(server.url)("POST", "/api/leads/submit", body, { Accept: "application/json" });
const stored = async () => ({
  files: await db.leadFile.count(),
  chunks: await db.leadFileChunk.count(),
  leads: await db.lead.count({ where: { formId } }),
});

type Listed = { id: string; field: string; filename: string; contentType: string; size: number; url: string };

describe("a lead with files", () => {
  it("stores each file whole, lists it on the lead, and downloads it byte for byte, only as an attachment", async () => {
    const png = pngBytes(700 * 1024 + 5);
    const pdf = pdfBytes(3000);
    const res = await submit(
      uploadForm(formId, [
        { bytes: png, name: "scan.png" },
        { bytes: pdf, name: "quote.pdf" },
      ]),
    );
    expect(res.status, res.text).toBe(201);
    const lead = (await call("GET", `/api/leads/${res.body.id}`)).body.lead;
    expect(lead.data.documents).toEqual(["scan.png", "quote.pdf"]);
    const files = lead.files as Listed[];
    expect(files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size }))).toEqual([
      { field: "documents", filename: "scan.png", contentType: "image/png", size: png.byteLength },
      { field: "documents", filename: "quote.pdf", contentType: "application/pdf", size: pdf.byteLength },
    ]);
    expect(files[0].url).toMatch(new RegExp(`/api/leads/${res.body.id}/files/${files[0].id}$`));
    // Three chunks of 256 KiB for the picture.
    expect(await db.leadFileChunk.count({ where: { fileId: files[0].id } })).toBe(3);

    for (const [file, bytes] of [
      [files[0], png],
      [files[1], pdf],
    ] as const) {
      const api = await fetch(`${server.url}/api/leads/${res.body.id}/files/${file.id}`, {
        headers: { Cookie: cookie },
      });
      expect(api.status).toBe(200);
      expect(Buffer.from(await api.arrayBuffer()).equals(bytes)).toBe(true);
      expect(api.headers.get("content-disposition")).toMatch(/^attachment; filename="/);
      expect(api.headers.get("x-content-type-options")).toBe("nosniff");
      expect(api.headers.get("content-type")).toBe(file.contentType);
      const page = await fetch(`${server.url}/leads/${res.body.id}/files/${file.id}`, { headers: { Cookie: cookie } });
      expect(page.status).toBe(200);
      expect(Buffer.from(await page.arrayBuffer()).equals(bytes)).toBe(true);
    }
    // The export names each file with its dashboard link.
    const csv = await call("GET", `/api/leads/export?format=csv&formId=${formId}`);
    expect(csv.status).toBe(200);
    const link = (file: Listed) => `https?://[^ ]+/leads/${res.body.id}/files/${file.id}`;
    expect(csv.text).toMatch(new RegExp(`scan\\.png \\(${link(files[0])}\\), quote\\.pdf \\(${link(files[1])}\\)`));
  });

  it("needs a login or a token that reads leads to download, and deletes the files with their lead", async () => {
    const res = await submit(uploadForm(formId, [{ bytes: pngBytes(1000), name: "a.png" }]));
    expect(res.status, res.text).toBe(201);
    const [file] = (await call("GET", `/api/leads/${res.body.id}`)).body.lead.files as Listed[];
    const apiPath = `/api/leads/${res.body.id}/files/${file.id}`;
    expect((await fetch(`${server.url}${apiPath}`)).status).toBe(401);
    const page = await fetch(`${server.url}/leads/${res.body.id}/files/${file.id}`, { redirect: "manual" });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
    // Another lead's id with this file's id: not found.
    const other = await submit({ formId, data: { name: "No files" } });
    expect((await call("GET", `/api/leads/${other.body.id}/files/${file.id}`)).status).toBe(404);

    const token = (await call("POST", "/api/tokens", { name: "files", scopes: ["leads:read"] })).body.token as string;
    const withToken = await fetch(`${server.url}${apiPath}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(withToken.status).toBe(200);
    expect((await withToken.arrayBuffer()).byteLength).toBe(1000);

    expect((await call("DELETE", `/api/leads/${res.body.id}`)).status).toBe(204);
    expect(await db.leadFile.count({ where: { id: file.id } })).toBe(0);
    expect(await db.leadFileChunk.count({ where: { fileId: file.id } })).toBe(0);
  });

  it("carries the files in the lead.created webhook exactly as GET /api/leads/:id shows the lead", async () => {
    const endpoint = await call("POST", "/api/webhooks", {
      url: `${receiver.url}/files`,
      events: ["lead.created"],
      formId,
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const res = await submit(uploadForm(formId, [{ bytes: pdfBytes(5000), name: "brief.pdf" }]));
    expect(res.status, res.text).toBe(201);
    await expect.poll(() => receiver.received.filter((r) => r.path === "/files").length, { timeout: 15_000 }).toBe(1);
    const [request] = receiver.received.filter((r) => r.path === "/files");
    const event = new Webhook(endpoint.body.secret).verify(request.body, request.headers) as { data: any };
    const {
      notes: _n,
      timeline: _t,
      history: _h,
      stage: _s,
      ...lead
    } = (await call("GET", `/api/leads/${res.body.id}`)).body.lead;
    expect(lead.files).toHaveLength(1);
    expect(event.data).toEqual(lead);
    await call("DELETE", `/api/webhooks/${endpoint.body.id}`);
  });
});

describe("uploads refused, with nothing kept", () => {
  it("answers 413 for a file over its field's size", async () => {
    const before = await stored();
    const res = await submit(uploadForm(formId, [{ bytes: pngBytes(2 * MiB + 1), name: "big.png" }]));
    expect(res.status, res.text).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(await stored()).toEqual(before);
  });

  it("cuts a huge upload short at the hard limit with 413", async () => {
    const before = await stored();
    const started = Date.now();
    const res = await submit(uploadForm(formId, [{ bytes: pngBytes(40 * MiB), name: "huge.png" }]));
    expect(res.status, res.text).toBe(413);
    expect(Date.now() - started).toBeLessThan(30_000);
    await expect.poll(stored).toEqual(before);
  });

  it("answers 422 for a program named .png (its bytes are checked), naming the field", async () => {
    const before = await stored();
    const res = await submit(uploadForm(formId, [{ bytes: exeBytes(4096), name: "invoice.png" }]));
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.details).toEqual([
      { path: "data.documents", message: expect.stringContaining("invoice.png") },
    ]);
    expect(await stored()).toEqual(before);
  });

  it("answers 422 for a type the field does not accept, and for too many files", async () => {
    const before = await stored();
    const text = await submit(uploadForm(formId, [{ bytes: Buffer.from("hello\n"), name: "notes.txt" }]));
    expect(text.status, text.text).toBe(422);
    const three = [1, 2, 3].map((i) => ({ bytes: pngBytes(2000, i), name: `${i}.png` }));
    const many = await submit(uploadForm(formId, three));
    expect(many.status, many.text).toBe(422);
    expect(many.body.error.details[0]).toMatchObject({ path: "data.documents", message: "Attach at most 2 files." });
    expect(await stored()).toEqual(before);
    // A file under a name no file field has is dropped (a site's own file input), as unknown
    // text fields are: the lead is stored, the file is not.
    const misplaced = await submit(uploadForm(formId, [{ bytes: pngBytes(2000), name: "x.png", field: "name" }]));
    expect(misplaced.status, misplaced.text).toBe(201);
    expect(await stored()).toEqual({ ...before, leads: before.leads + 1 });
  });

  it("refuses a file field's value in JSON (files come as multipart/form-data)", async () => {
    const res = await submit({ formId, data: { name: "Json", documents: ["x.png"] } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.details[0].path).toBe("data.documents");
  });

  it("leaves no lead and no chunk when the upload is cut off midway", async () => {
    const before = await stored();
    const boundary = "----cut-off-upload";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="formId"\r\n\r\n${formId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut Carl\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="documents"; filename="half.png"\r\n` +
        `Content-Type: image/png\r\n\r\n`,
    );
    const { hostname, port } = new URL(server.url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST /api/leads/submit HTTP/1.1\r\nHost: ${hostname}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${2 * MiB}\r\n\r\n`,
    );
    socket.write(head);
    socket.write(pngBytes(MiB));
    // The first chunks reach the database before the client goes away.
    await expect.poll(async () => (await stored()).chunks, { timeout: 10_000 }).toBeGreaterThan(before.chunks);
    socket.destroy();
    await expect.poll(stored, { timeout: 10_000 }).toEqual(before);
  });
});

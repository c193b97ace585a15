// A file over its own field's maxSizeMb is cut off as it streams in (decision 064): once the
// post has named its form, the read stops at the byte that passes the field's limit, and the
// rows written so far are deleted before the answer, with the rest of the body still on its
// way. A script gets the JSON error naming the field; a browser's page post (no JavaScript)
// goes back to the hosted form with the text typed after the file kept. Nothing is left.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";
import { formWithFile, pngBytes } from "../support/uploads";

let server: TestServer;
let formId: string;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
  formId = await newForm({
    name: "Cut-off uploads",
    fields: [...formWithFile(), { key: "comment", label: "Comment", type: "textarea" }],
  });
});
afterAll(async () => {
  console.log(
    "SERVER OUTPUT",
    server
      ?.output()
      .split("\n")
      .filter((l) => !l.includes('"level":"info"'))
      .join("\n")
      .slice(-4000),
  );
  await server?.stop();
});

const MiB = 1024 * 1024;
const BOUNDARY = "----field-limit-cutoff";
const stored = async () => ({
  files: await db.leadFile.count(),
  chunks: await db.leadFileChunk.count(),
  leads: await db.lead.count({ where: { formId } }),
});

const textPart = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

/** The multipart body as the hosted page sends it: formId first, the file, then the text after it. */
function bodyParts(fileSize: number, postedFormId = formId) {
  const head = Buffer.from(
    textPart("formId", postedFormId) +
      textPart("name", "Big Bertha") +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="documents"; filename="scan.png"\r\n` +
      "Content-Type: image/png\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n${textPart("comment", "Typed after the file")}--${BOUNDARY}--\r\n`);
  return { head, file: pngBytes(fileSize), tail, length: head.byteLength + fileSize + tail.byteLength };
}

/** A multipart post of `fields` (in order; a Blob entry as a file named by its third item) as a script sends it. */
function postParts(url: string, fields: Array<[string, string] | [string, Blob, string]>) {
  const form = new FormData();
  for (const [name, value, filename] of fields) {
    if (typeof value === "string") form.append(name, value);
    else form.append(name, value, filename);
  }
  return fetch(`${url}/api/leads/submit`, { method: "POST", body: form, headers: { Accept: "application/json" } });
}

/** A POST written by hand, so the test decides when the rest of the body goes. */
async function rawPost(headers: Record<string, string>, length: number, to = new URL(server.url)) {
  const { hostname, port } = to;
  const socket = net.connect(Number(port), hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  let received = "";
  socket.on("data", (data: Buffer) => (received += data.toString("latin1")));
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const lines = Object.entries({
    Host: hostname,
    "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
    "Content-Length": String(length),
    ...headers,
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`POST /api/leads/submit HTTP/1.1\r\n${lines.join("")}Connection: close\r\n\r\n`);
  return {
    write: (bytes: Buffer) => new Promise<void>((resolve) => socket.write(bytes, () => resolve())),
    /** The whole answer once the server has closed the connection. */
    answer: async () => {
      await ended;
      const [head, ...body] = received.split("\r\n\r\n");
      return { status: Number(head.split(" ")[1]), head, body: body.join("\r\n\r\n") };
    },
  };
}

describe("a file over its field's limit", () => {
  it("is cut off while it streams: nothing kept before the body has even ended, then 413 naming the field", async () => {
    const before = await stored();
    // The field takes 2 MB; the client sends 1.5 MiB of a declared 8 MiB file: stored as it comes.
    const { head, file, tail, length } = bodyParts(8 * MiB);
    const post = await rawPost({ Accept: "application/json" }, length);
    await post.write(head);
    await post.write(file.subarray(0, 1.5 * MiB));
    await expect
      .poll(async () => (await stored()).chunks, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(before.chunks + 5);
    // Then 1.5 MiB more, and waits: the rows are gone while 5 MiB of the body are still to
    // come, so the limit was applied at its byte, not after reading the whole file.
    await post.write(file.subarray(1.5 * MiB, 3 * MiB));
    await expect.poll(stored, { timeout: 10_000 }).toEqual(before);
    await post.write(file.subarray(3 * MiB));
    await post.write(tail);
    const answer = await post.answer();
    expect(answer.status, answer.head).toBe(413);
    const error = JSON.parse(answer.body).error;
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toBe("scan.png weighs more than 2 MB, the most Documents takes.");
    expect(error.details).toEqual([
      { path: "data.documents", message: "scan.png is too large: choose a file of at most 2 MB." },
    ]);
    expect(await stored()).toEqual(before);
  });

  it("sends a browser without JavaScript back to the form, what it typed (after the file too) kept, the file's problem beside it", async () => {
    const before = await stored();
    const { head, file, tail, length } = bodyParts(3 * MiB);
    const post = await rawPost({ Accept: "text/html", "Sec-Fetch-Mode": "navigate" }, length);
    await post.write(Buffer.concat([head, file, tail]));
    const answer = await post.answer();
    expect(answer.status, answer.head).toBe(303);
    const location = /\r\nlocation: ([^\r\n]+)/i.exec(answer.head)![1];
    expect(location).toMatch(new RegExp(`^/f/${formId}\\?`));
    expect(await stored()).toEqual(before);

    const page = await fetch(`${server.url}${location}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("scan.png is too large: choose a file of at most 2 MB.");
    expect(html).toContain('value="Big Bertha"');
    expect(html).toContain("Typed after the file");
  });

  it("refuses a post that names its form only after a file, and writes nothing of it", async () => {
    const before = await stored();
    const res = await postParts(server.url, [
      ["name", "Late Lou"],
      ["documents", new Blob([new Uint8Array(pngBytes(1000))]), "late.png"],
      ["formId", formId],
    ]);
    expect(res.status).toBe(422);
    expect((await res.json()).error.details).toEqual([
      { path: "formId", message: "Put the formId field before the file inputs in the form." },
    ]);
    expect(await stored()).toEqual(before);
  });
});

describe("a file no open form asked for", () => {
  it("is read and dropped as it streams for a form that does not exist: no row written, then 404", async () => {
    const before = await stored();
    const { head, file, tail, length } = bodyParts(3 * MiB, "no-such-form");
    const post = await rawPost({ Accept: "application/json" }, length);
    await post.write(head);
    await post.write(file.subarray(0, 2 * MiB));
    // A form's file is in the database by now (the first test saw 5 chunks of 1.5 MiB); this
    // one is not, and is never.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await stored()).toEqual(before);
    await post.write(file.subarray(2 * MiB));
    await post.write(tail);
    const answer = await post.answer();
    expect(answer.status, answer.head).toBe(404);
    expect(JSON.parse(answer.body).error.code).toBe("form_not_found");
    expect(await stored()).toEqual(before);
  });

  it("stops reading a dropped file at the 25 MB a file may weigh: 413", async () => {
    const before = await stored();
    const { head, file, tail, length } = bodyParts(26 * MiB, "no-such-form");
    const post = await rawPost({ Accept: "application/json" }, length);
    await post.write(head);
    await post.write(file);
    await post.write(tail);
    const answer = await post.answer();
    expect(answer.status, answer.head).toBe(413);
    expect(JSON.parse(answer.body).error.message).toBe("A file may weigh at most 25 MB.");
    expect(await stored()).toEqual(before);
  });

  it("takes an empty file input before formId (a browser sends one for a file not chosen)", async () => {
    const before = await stored();
    const res = await postParts(server.url, [
      ["documents", new Blob([]), ""],
      ["formId", formId],
      ["name", "Empty Emma"],
    ]);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await stored()).toEqual({ ...before, leads: before.leads + 1 });
  });

  it("keeps no file sent under a name that is not one of the form's file fields", async () => {
    const before = await stored();
    const res = await postParts(server.url, [
      ["formId", formId],
      ["name", "Odd Otto"],
      ["comment", new Blob([new Uint8Array(pngBytes(1000))]), "stray.png"],
    ]);
    expect(res.status).toBe(201);
    const after = await stored();
    expect(after).toEqual({ ...before, leads: before.leads + 1 });
  });
});

describe("a file from an address over the form's rate limit", () => {
  it("is read and dropped unwritten, then 429", async () => {
    const limited = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "1" });
    try {
      const accepted = await postParts(limited.url, [
        ["formId", formId],
        ["name", "First Fay"],
        ["documents", new Blob([new Uint8Array(pngBytes(1000))]), "first.png"],
      ]);
      expect(accepted.status).toBe(201);
      const before = await stored();
      const { head, file, tail, length } = bodyParts(3 * MiB);
      const post = await rawPost({ Accept: "application/json" }, length, new URL(limited.url));
      await post.write(head);
      await post.write(file.subarray(0, 2 * MiB));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await stored()).toEqual(before);
      await post.write(file.subarray(2 * MiB));
      await post.write(tail);
      const answer = await post.answer();
      expect(answer.status, answer.head).toBe(429);
      expect(await stored()).toEqual(before);
    } finally {
      await limited.stop();
    }
  });
});

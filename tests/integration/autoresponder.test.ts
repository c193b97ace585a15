// A form's autoresponder through the outbox to a real SMTP server (decision 066): the
// owner's text with {{name}} cleaned, Auto-Submitted and List-Unsubscribe headers, nothing
// for spam, at most AUTORESPONDER_MAX_PER_DAY to one address however many parallel submits,
// and an unknown placeholder refused at save by name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFormThroughApi } from "../support/forms";
import { apiClient, loginAsStaff, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { ParsedMail } from "mailparser";

let smtp: TestSmtp;
let server: TestServer;
let call: ApiClient;

beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({
    SMTP_URL: smtp.url,
    OUTBOX_POLL_MS: "100",
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    AUTORESPONDER_MAX_PER_DAY: "3",
  });
  call = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
  await smtp?.close();
});

const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? undefined : mail.to?.value[0]?.address);
const mailsTo = (address: string) => smtp.received.filter((mail) => to(mail) === address);

let forms = 0;
async function newForm(autoresponder: Record<string, unknown>) {
  forms++;
  const form = await createFormThroughApi(call, {
    name: `Webinar ${forms}`,
    fields: [
      { key: "name", label: "Full name", type: "text", required: true },
      { key: "email", label: "Email", type: "email", required: true },
      { key: "message", label: "Message", type: "textarea" },
    ],
  });
  const patched = await call("PATCH", `/api/forms/${form.id}`, { settings: { autoresponder } });
  return { form: form as { id: string }, patched };
}

const submit = (formId: string, data: Record<string, unknown>) =>
  apiClient(server.url)("POST", "/api/leads/submit", { formId, data });

const RESPONDER = { enabled: true, subject: "Thanks, {{name}}", body: "You are on the list for {{form.name}}." };

describe("autoresponder", () => {
  it("refuses an unknown placeholder or a textarea at save, naming it", async () => {
    const { patched } = await newForm({ ...RESPONDER, body: "You wrote {{message}}" });
    expect(patched.status).toBe(422);
    expect(patched.text).toContain("{{message}}");
    const { patched: allowed } = await newForm({ ...RESPONDER, allowFields: ["message"] });
    expect(allowed.status).toBe(422);
    expect(allowed.text).toContain("free text");
  });

  it("sends the owner's text, the name cleaned, with the automatic-reply and unsubscribe headers", async () => {
    const { form, patched } = await newForm(RESPONDER);
    expect(patched.status, patched.text).toBe(200);
    const res = await submit(form.id, {
      name: "Ada <b>Lovelace</b> https://evil.example/win",
      email: "ada@visitor.example",
      message: "Send this to a stranger",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.confirmationEmail).toBe(true);
    await expect.poll(() => mailsTo("ada@visitor.example").length, { timeout: 15_000 }).toBe(1);
    const [mail] = mailsTo("ada@visitor.example");
    expect(mail.subject).toBe("Thanks, Ada Lovelace");
    expect(mail.text).toContain(`You are on the list for Webinar ${forms}.`);
    expect(mail.text).not.toContain("evil.example");
    expect(mail.text).not.toContain("Send this to a stranger");
    expect(mail.headers.get("auto-submitted")).toBe("auto-replied");
    const header = (name: string) =>
      mail.headerLines.find((line) => line.key === name)?.line.replace(/\r?\n[ \t]+/g, " ") ?? "";
    expect(header("list-unsubscribe-post")).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/i);
    expect(header("list-unsubscribe")).toMatch(/^List-Unsubscribe: *<http:\/\/[^>]+\/unsubscribe\/[\w-]+\.[\w-]+>$/i);
  });

  it("stops at the signed unsubscribe link: a GET changes nothing, the POST suppresses the address", async () => {
    const { form } = await newForm(RESPONDER);
    const address = "leaver@visitor.example";
    expect((await submit(form.id, { name: "Leaver", email: address })).body.confirmationEmail).toBe(true);
    await expect.poll(() => mailsTo(address).length, { timeout: 15_000 }).toBe(1);
    const url = /\/unsubscribe\/[\w-]+\.[\w-]+/.exec(mailsTo(address)[0].text ?? "")?.[0];
    expect(url).toBeDefined();
    const visitor = apiClient(server.url);
    expect((await visitor("GET", `${url}x`)).status).toBe(404);
    expect((await visitor("GET", url!)).status).toBe(200);
    expect((await submit(form.id, { name: "Leaver", email: address })).body.confirmationEmail).toBe(true);
    const posted = await fetch(`${server.url}${url}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.url },
      body: "List-Unsubscribe=One-Click",
    });
    expect(posted.status, await posted.text()).toBe(200);
    expect((await submit(form.id, { name: "Leaver", email: address })).body.confirmationEmail).toBeUndefined();
  });

  it("sends nothing for spam", async () => {
    const { form } = await newForm(RESPONDER);
    const res = await apiClient(server.url)("POST", "/api/leads/submit", {
      formId: form.id,
      data: { name: "Bot", email: "spam-target@visitor.example" },
      _hp: "filled",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.confirmationEmail).toBeUndefined();
  });

  it("sends one address at most 3 a day, however many parallel submits", async () => {
    const { form } = await newForm(RESPONDER);
    const victim = "flooded@victim.example";
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => submit(form.id, { name: `Flood ${i}`, email: victim })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    expect(answers.filter((answer) => answer.body.confirmationEmail === true)).toHaveLength(3);
    await expect.poll(() => mailsTo(victim).length, { timeout: 15_000 }).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mailsTo(victim)).toHaveLength(3);
  });
});

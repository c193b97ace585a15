// Forms in steps through the API and, without JavaScript, through the hosted page (issue 31,
// item 1): each step a post to /f/:id that keeps the answers on the server under a token and
// redirects to the next step (skipping one whose fields are all hidden), Back and the
// browser's back button showing what was typed, and the last step's post completing the lead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIMESTAMP_FIELD } from "~/capture/lead-signatures.server";
import { db } from "~/storage/db.server";
import { createFormThroughApi, THREE_STEPS } from "../support/forms";
import { apiClient, loginAsStaff, postForm, type ApiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let api: ApiClient;

beforeAll(async () => {
  server = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
  api = apiClient(server.url, await loginAsStaff(server.url));
});
afterAll(async () => {
  await server?.stop();
});

const { fields: FIELDS, settings: SETTINGS } = THREE_STEPS;

const decode = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The page's inputs as [type, name, value], in order. */
function inputsOf(html: string): Array<[string, string, string]> {
  return [...html.matchAll(/<input\b[^>]*>/g)].map(([tag]) => {
    const attribute = (name: string) => decode(new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1] ?? "");
    return [attribute("type") || "text", attribute("name"), attribute("value")];
  });
}
const hiddenOf = (html: string) =>
  inputsOf(html)
    .filter(([type]) => type === "hidden")
    .map(([, name, value]) => [name, value] as [string, string]);
const get = async (path: string) => {
  const res = await fetch(`${server.url}${path}`);
  return { status: res.status, html: await res.text() };
};

describe("a form in steps through the API", () => {
  it("keeps steps and step titles, and refuses fields out of step order or a step without fields", async () => {
    const form = await createFormThroughApi(api, { name: "Stepped", fields: FIELDS, settings: SETTINGS });
    expect(form.fields.map((field: { step?: number }) => field.step)).toEqual([
      undefined,
      undefined,
      undefined,
      2,
      3,
      3,
    ]);
    expect(form.settings.stepTitles).toEqual(SETTINGS.stepTitles);
    const outOfOrder = await api("PUT", `/api/forms/${form.id}/schema`, { fields: [FIELDS[4], FIELDS[5]] });
    expect(outOfOrder.status).toBe(422);
    expect(outOfOrder.body.error.details).toEqual([
      {
        path: "fields.0.step",
        message: 'Steps follow one another: "message" is on step 3, but step 1 has no field before it.',
      },
    ]);
  });

  it("takes a JSON submission of every step at once, as any form", async () => {
    const form = await createFormThroughApi(api, { name: "Stepped JSON", fields: FIELDS });
    const res = await api("POST", "/api/leads/submit", {
      formId: form.id,
      data: { email: "json@example.com", reason: "sales", company: "Acme", message: "Hi" },
    });
    expect(res.status).toBe(201);
  });
});

describe("a form in steps without JavaScript", () => {
  let formId: string;
  beforeAll(async () => {
    formId = (await createFormThroughApi(api, { name: "Stepped", fields: FIELDS, settings: SETTINGS })).id;
  });

  it("goes step by step, keeps answers for Back and the back button, skips a hidden step, and sends the lead once", async () => {
    // Step 1, from a link that prefills the hidden plan and names its source.
    const first = await get(`/f/${formId}?plan=pro&utm_source=newsletter`);
    expect(first.status).toBe(200);
    expect(first.html).toContain("Step 1 of 3: You");
    expect(inputsOf(first.html).map(([, name]) => name)).toContain("email");
    expect(first.html).not.toContain('name="company"');
    const hidden = hiddenOf(first.html);
    expect(hidden).toEqual(
      expect.arrayContaining([
        ["plan", "pro"],
        ["utm_source", "newsletter"],
        ["_step", "1"],
      ]),
    );
    const timestamp = hidden.find(([name]) => name === TIMESTAMP_FIELD)![1];

    // Next with a wrong address stays on step 1, with the problem and what was typed.
    const refused = await postForm(`${server.url}/f/${formId}`, [
      ...hidden,
      ["email", "not-an-address"],
      ["reason", "support"],
      ["_intent", "next"],
    ]);
    expect(refused.status).toBe(303);
    const again = new URL(refused.location!, server.url);
    expect(again.searchParams.get("_step")).toBe("1");
    const token = again.searchParams.get("_progress")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const shownAgain = await get(again.pathname + again.search);
    expect(shownAgain.html).toContain("Enter a valid email address.");
    expect(shownAgain.html).toContain('value="not-an-address"');

    // Put right, Next skips step 2 (only sales is asked for a company): step 3 is "2 of 2".
    const step1Hidden = hiddenOf(shownAgain.html);
    expect(step1Hidden).toEqual(
      expect.arrayContaining([
        ["_progress", token],
        [TIMESTAMP_FIELD, timestamp],
      ]),
    );
    const next = await postForm(`${server.url}/f/${formId}`, [
      ...step1Hidden,
      ["email", "visitor@example.com"],
      ["reason", "support"],
      ["_intent", "next"],
    ]);
    const third = new URL(next.location!, server.url);
    expect(third.searchParams.get("_step")).toBe("3");
    expect(third.searchParams.get("utm_source")).toBe("newsletter");
    const step3 = await get(third.pathname + third.search);
    expect(step3.html).toContain("Step 2 of 2: Anything else");
    const carried = hiddenOf(step3.html);
    // The earlier answers travel with the page, the first page's timestamp too.
    expect(carried).toEqual(
      expect.arrayContaining([
        ["email", "visitor@example.com"],
        ["reason", "support"],
        ["plan", "pro"],
        [TIMESTAMP_FIELD, timestamp],
        ["_progress", token],
      ]),
    );

    // The browser's back button: step 1's address shows the answers kept on the server.
    const back = await get(`/f/${formId}?_step=1&_progress=${token}`);
    expect(back.html).toContain('value="visitor@example.com"');
    expect(back.html).not.toContain("Enter a valid email address.");
    // The Back button keeps what step 3 had and goes to step 1 (step 2 skipped again).
    const backButton = await postForm(`${server.url}/f/${formId}`, [
      ...carried,
      ["message", "Half typed"],
      ["_intent", "back"],
    ]);
    expect(new URL(backButton.location!, server.url).searchParams.get("_step")).toBe("1");
    expect((await get(`/f/${formId}?_step=3&_progress=${token}`)).html).toContain("Half typed");

    // The last step posts everything to the submit endpoint: one lead, and the progress forgotten.
    const sent = await postForm(`${server.url}/api/leads/submit`, [
      ...carried,
      ["message", "Please call"],
      ["callMe", "on"],
    ]);
    expect(sent.status).toBe(303);
    expect(sent.location).toBe(`/f/${formId}/thanks`);
    const leads = await db.lead.findMany({ where: { formId } });
    expect(leads).toHaveLength(1);
    expect(leads[0].data).toEqual({
      plan: "pro",
      email: "visitor@example.com",
      reason: "support",
      message: "Please call",
      callMe: true,
    });
    expect(leads[0].utmSource).toBe("newsletter");
    expect(
      await db.visitorDraft.count({ where: { scope: `lead-form:${formId}`, payload: { contains: "Please call" } } }),
    ).toBe(0);
    expect((await get(`/f/${formId}?_step=3&_progress=${token}`)).html).not.toContain("Please call");
  });

  it("sends a refused last step back to the step of its first problem, answers kept", async () => {
    const first = await get(`/f/${formId}`);
    const step1 = await postForm(`${server.url}/f/${formId}`, [
      ...hiddenOf(first.html),
      ["email", "sales@example.com"],
      ["reason", "sales"],
      ["_intent", "next"],
    ]);
    const second = new URL(step1.location!, server.url);
    expect(second.searchParams.get("_step")).toBe("2");
    const step2 = await get(second.pathname + second.search);
    expect(step2.html).toContain("Step 2 of 3: Your company");
    // Step 2's Next refuses an empty required company.
    const empty = await postForm(`${server.url}/f/${formId}`, [
      ...hiddenOf(step2.html),
      ["company", ""],
      ["_intent", "next"],
    ]);
    expect(new URL(empty.location!, server.url).searchParams.get("_step")).toBe("2");
    // A last step posted without step 2's answer (a stale page): back to step 2, with the message.
    const token = second.searchParams.get("_progress")!;
    const leadsBefore = await db.lead.count({ where: { formId } });
    const stale = await postForm(`${server.url}/api/leads/submit`, [
      ...hiddenOf(step2.html).filter(([name]) => name !== "_step"),
      ["message", "Typed on the last step"],
    ]);
    expect(stale.status).toBe(303);
    const bounced = new URL(stale.location!, server.url);
    expect(bounced.searchParams.get("_progress")).toBe(token);
    const page = await get(bounced.pathname + bounced.search);
    expect(page.html).toContain("Step 2 of 3");
    expect(page.html).toContain("This field is required.");
    expect(page.html).toContain("Typed on the last step");
    expect(await db.lead.count({ where: { formId } })).toBe(leadsBefore);
  });

  it("answers a step post to a form without steps or an archived one with its page", async () => {
    const plain = await createFormThroughApi(api, { name: "Plain", fields: [FIELDS[1]] });
    const post = await postForm(`${server.url}/f/${plain.id}`, [
      ["formId", plain.id],
      ["_intent", "next"],
    ]);
    expect(post.status).toBe(303);
    expect(post.location).toBe(`/f/${plain.id}`);
    expect(await db.visitorDraft.count({ where: { scope: `lead-form:${plain.id}` } })).toBe(0);
  });
});

// The lead page (/leads/:id) over HTTP, as a browser without JavaScript uses it: status,
// owner and tags saved by one form post, notes, the timeline, the same person's history,
// spam and "Not spam", and bad input answered 422 next to its input (never a 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { apiClient, sendForm, STAFF, staffSession } from "../support/http";
import { createForm, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;
let bob: { id: string };
let formId: string;

beforeAll(async () => {
  server = await startServer({
    SUBMIT_RATE_LIMIT_PER_MINUTE: "0",
    SUPPORT_RATE_LIMIT_PER_HOUR: "0",
    SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0",
  });
  ({ cookie } = await staffSession(server.url, { ...STAFF, name: "Ann Staff" }));
  bob = (await createOrResetUser({ email: "bob@leads.example", password: STAFF.password, name: "Bob", role: "agent" }))
    .user;
  formId = (await createForm("Contact", [[field("name", "Name"), field("email", "Email", "email")]])).id;
});
afterAll(async () => {
  await server?.stop();
});

/** A lead stored as a visitor sends it (the email column is set from the email field). */
async function submitLead(email: string, name = "Ada"): Promise<string> {
  const res = await apiClient(server.url)("POST", "/api/leads/submit", { formId, data: { name, email } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A dashboard form post, as the browser sends it. */
const post = (id: string, fields: Record<string, string>) =>
  sendForm(`${server.url}/leads/${id}`, fields, { Cookie: cookie, Origin: server.url });

async function pageOf(id: string): Promise<string> {
  const res = await fetch(`${server.url}/leads/${id}`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  // Without React's markers between adjacent texts.
  return (await res.text()).replaceAll("<!-- -->", "");
}

const apiLead = async (id: string) => (await apiClient(server.url, cookie)("GET", `/api/leads/${id}`)).body.lead;

/** The text of the page's element with this id (an input's error message). */
function textOf(html: string, id: string): string | undefined {
  return html.match(new RegExp(`id="${id}"[^>]*>([^<]*)<`))?.[1];
}

describe("working a lead on its page", () => {
  it("saves status, owner and tags from one plain form post, and shows each change on the timeline", async () => {
    const id = await submitLead("work@leads.example");
    const res = await post(id, { intent: "update", status: "contacted", ownerId: bob.id, tags: "Hot, vip ,, hot" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/leads/${id}?done=update`);
    expect(await apiLead(id)).toMatchObject({ status: "contacted", owner: { id: bob.id }, tags: ["hot", "vip"] });

    const html = await pageOf(id);
    expect(html).toContain("changed the status from New to Contacted");
    expect(html).toContain("gave it to Bob");
    expect(html).toContain("tagged it hot, vip");
    expect(html).toContain("Ann Staff");
    expect(html).toMatch(/<option value="contacted" selected="">/);
    expect(html).toMatch(/<datalist id="lead-tag-suggestions">.*<option value="hot">/s);
    // Times are the staff user's (UTC until they choose a zone), through LocalTime.
    expect(html).toMatch(/<time dateTime="[^"]+">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time>/);

    const cleared = await post(id, { intent: "update", status: "contacted", ownerId: "", tags: "" });
    expect(cleared.status).toBe(302);
    expect(await apiLead(id)).toMatchObject({ owner: null, tags: [] });
    const after = await pageOf(id);
    expect(after).toContain("took it from Bob: nobody owns it");
    expect(after).toContain("removed the tags hot, vip");
  });

  it("changes only what the person changed: another's change made meanwhile stays", async () => {
    const id = await submitLead("meanwhile@leads.example");
    // Someone else qualifies the lead after this page was loaded (status new, no tags) ...
    expect((await post(id, { intent: "update", status: "qualified" })).status).toBe(302);
    // ... and this page's form, showing new, only adds a tag.
    const res = await post(id, {
      intent: "update",
      status: "new",
      statusWas: "new",
      ownerId: "",
      ownerIdWas: "",
      tags: "later",
      tagsWas: "",
    });
    expect(res.status).toBe(302);
    expect(await apiLead(id)).toMatchObject({ status: "qualified", tags: ["later"] });
  });

  it("answers a bad status, an unknown owner or too many tags with 422 naming the input, and changes nothing", async () => {
    const id = await submitLead("bad@leads.example");
    const status = await post(id, { intent: "update", status: "closed" });
    expect(status.status).toBe(422);
    expect(textOf(await status.text(), "lead-status-error")).toMatch(/^Use one of new, contacted/);

    const owner = await post(id, { intent: "update", ownerId: "no-such-user" });
    expect(owner.status).toBe(422);
    expect(textOf(await owner.text(), "lead-owner-error")).toBe("No enabled staff user has this id.");

    const tags = Array.from({ length: 11 }, (_, i) => `tag${i}`).join(", ");
    const many = await post(id, { intent: "update", tags });
    expect(many.status).toBe(422);
    const html = await many.text();
    expect(textOf(html, "lead-tags-error")).toBe("Use at most 10 tags.");
    // The refused value is shown again, to be corrected.
    expect(html).toContain(`value="${tags}"`);

    const long = await post(id, { intent: "update", tags: `ok, ${"x".repeat(41)}` });
    expect(long.status).toBe(422);
    expect(textOf(await long.text(), "lead-tags-error")).toBe("Tag 2: Use at most 40 characters.");

    expect(await apiLead(id)).toMatchObject({ status: "new", owner: null, tags: [], timeline: [] });
  });

  it("adds a note to the timeline with who wrote it, and refuses an empty one with 422", async () => {
    const id = await submitLead("note@leads.example");
    const res = await post(id, { intent: "note", body: "Called: wants a demo <b>next week</b>." });
    expect(res.status).toBe(302);
    const html = await pageOf(id);
    expect(html).toContain("Ann Staff</strong> added a note");
    expect(html).toContain("Called: wants a demo &lt;b&gt;next week&lt;/b&gt;.");

    const empty = await post(id, { intent: "note", body: "   " });
    expect(empty.status).toBe(422);
    expect(textOf(await empty.text(), "note-error")).toBe("Write the note.");
    expect((await apiLead(id)).notes).toHaveLength(1);
  });

  it("marks a lead spam and 'Not spam' returns it to the stage it had", async () => {
    const id = await submitLead("spam@leads.example");
    await post(id, { intent: "update", status: "qualified" });
    await post(id, { intent: "update", status: "spam" });
    const html = await pageOf(id);
    expect(html).toContain('<span class="badge spam">spam</span>');
    expect(html).toMatch(/<button type="submit" name="status" value="qualified"[^>]*>Not spam<\/button>/);
    expect(html).toContain("marked it as spam");

    expect((await post(id, { intent: "update", status: "qualified" })).status).toBe(302);
    expect(await apiLead(id)).toMatchObject({ status: "qualified", isSpam: false });
    expect(await pageOf(id)).toContain("marked it not spam (Qualified)");
  });

  it("answers an unknown intent with 400 and an unknown lead with 404", async () => {
    const id = await submitLead("other@leads.example");
    expect((await post(id, { intent: "explode" })).status).toBe(400);
    expect((await post("no-such-lead", { intent: "update", status: "won" })).status).toBe(404);
    expect((await post("no-such-lead", { intent: "note", body: "hello" })).status).toBe(404);
  });
});

describe("one person's history on the lead page", () => {
  it("lists the other leads and the support requests of the same address, with links", async () => {
    const first = await submitLead("Grace@History.example", "Grace");
    const second = await submitLead("grace@history.example", "Grace again");
    const ticket = await apiClient(server.url)("POST", "/api/support-requests", {
      email: "grace@history.example",
      subject: "Invoice question",
      message: "Where is my invoice?",
    });
    expect(ticket.status, ticket.text).toBe(201);

    const html = await pageOf(second);
    expect(html).toContain(`href="/leads/${first}"`);
    expect(html).not.toContain(`href="/leads/${second}"`);
    expect(html).toContain(`href="/support/${ticket.body.reference}"`);
    expect(html).toContain("Invoice question");
    expect(html).not.toContain("No other leads or support requests from this address");
    // The address is a mailto: link.
    expect(html).toContain('href="mailto:grace@history.example"');
  });

  it("says so when the address has nothing else", async () => {
    const id = await submitLead("alone@history.example");
    const html = await pageOf(id);
    expect(html).toContain("No other leads or support requests from this address.");
    expect(html).toContain('href="mailto:alone@history.example"');
  });
});

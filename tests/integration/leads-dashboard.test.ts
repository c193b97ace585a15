// The lead list page as a browser without JavaScript uses it: the GET filter form, the
// count of matching leads, and the bulk form (ticked rows or the whole filter) posted
// form-encoded, answered with a redirect back to the same list and a one-time notice.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { STAFF, cookieFrom, loginAsStaff, postForm } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;
let ownerId: string;
let agentId: string;
let formId: string;

beforeAll(async () => {
  server = await startServer();
  ({
    user: { id: ownerId },
  } = await createOrResetUser({ ...STAFF, role: "owner" }));
  cookie = await loginAsStaff(server.url);
  ({
    user: { id: agentId },
  } = await createOrResetUser({
    email: "alex@list.example",
    password: STAFF.password,
    name: "Alex Agent",
    role: "agent",
  }));
  const form = await createForm("Contact", [[field("name", "Name"), field("email", "Email", "email")]]);
  formId = form.id;
  const lead = (name: string, campaign: string, at: string) => ({
    data: { name, email: `${name.toLowerCase()}@example.com` },
    utmCampaign: campaign,
    createdAt: day(at),
  });
  await createLeads(formId, [
    lead("Ada", "spring", "2026-03-01T10:00:00"),
    lead("Grace", "spring", "2026-03-02T10:00:00"),
    lead("Zoe", "spring", "2026-03-03T10:00:00"),
    lead("Mary", "summer", "2026-03-04T10:00:00"),
    lead("Katherine", "summer", "2026-03-05T10:00:00"),
  ]);
  // The seeding helper writes no email column: the list's mailto links read it.
  for (const row of await db.lead.findMany({ select: { id: true, data: true } })) {
    await db.lead.update({ where: { id: row.id }, data: { email: (row.data as { email: string }).email } });
  }
});
afterAll(async () => {
  await server?.stop();
});

async function get(path: string, extraCookie = "") {
  const response = await fetch(`${server.url}${path}`, {
    headers: { Cookie: [cookie, extraCookie].filter(Boolean).join("; ") },
    redirect: "manual",
  });
  return { status: response.status, location: response.headers.get("location"), response, html: await response.text() };
}

const post = (path: string, fields: Array<[string, string]>, as = cookie) =>
  postForm(`${server.url}${path}`, fields, { Cookie: as });

async function idsOf(...names: string[]): Promise<string[]> {
  const leads = await db.lead.findMany({ select: { id: true, data: true } });
  return names.map((name) => leads.find((lead) => (lead.data as { name: string }).name === name)!.id);
}

type Fields = Array<[string, string]>;

/** The bulk form as the page posts it: ticked `ids` of the spring list, unless told otherwise. */
function bulk(
  operation: string,
  ids: string[],
  { filter = "utm_campaign=spring", scope = "selected", tag = "", extra = [] as Fields } = {},
): Fields {
  return [
    ["intent", "bulk"],
    ["filter", filter],
    ["scope", scope],
    ["operation", operation],
    ["tag", tag],
    ...ids.map((id): [string, string] => ["ids", id]),
    ...extra,
  ];
}

async function latestBulkAudit() {
  const entry = await db.auditEntry.findFirst({ where: { action: "lead.bulk" }, orderBy: { id: "desc" } });
  return { actorId: entry?.actorId, details: JSON.parse(entry?.details ?? "{}") as Record<string, unknown> };
}

describe("the lead list", () => {
  it("shows how many leads match the filter, and each lead's email, status, owner and tags", async () => {
    const [ada] = await idsOf("Ada");
    await db.lead.update({ where: { id: ada }, data: { ownerId: agentId, status: "qualified" } });
    await db.leadTag.create({ data: { leadId: ada, tag: "vip" } });
    const spring = await get("/leads?utm_campaign=spring");
    expect(spring.status).toBe(200);
    expect(spring.html).toContain("3 leads match these filters.");
    expect(spring.html).toContain('href="mailto:ada@example.com"');
    expect(spring.html).toContain('<span class="badge status-qualified">qualified</span>');
    expect(spring.html).toContain("Alex Agent");
    expect(spring.html).toContain('<span class="badge tag">vip</span>');
    expect(spring.html).toMatch(new RegExp(`<a [^>]*href="/leads/${ada}"><time`));
    expect(spring.html).toMatch(/<option value="vip"><\/option>|<option value="vip"\/>/);
    expect((await get("/leads?tag=vip")).html).toContain("1 lead matches these filters.");
    expect((await get("/leads?ownerId=none&utm_campaign=spring")).html).toContain("2 leads match these filters.");
    expect((await get(`/leads?ownerId=${agentId}`)).html).toContain("1 lead matches these filters.");
    const unfiltered = (await get("/leads")).html;
    expect(unfiltered).toContain("5 leads match these filters.");
    // The campaign filters are folded away until one of them is set.
    expect(unfiltered).toMatch(/<details class="more-filters">/);
    expect((await get("/leads?utm_source=news")).html).toMatch(/<details class="more-filters" open="">/);
    await db.leadTag.deleteMany({});
    await db.lead.update({ where: { id: ada }, data: { ownerId: null, status: "new" } });
  });

  it("shows dates in the staff user's time zone", async () => {
    await db.user.update({ where: { id: ownerId }, data: { timeZone: "America/New_York" } });
    const html = (await get("/leads?utm_campaign=spring")).html;
    expect(html).toContain('<time dateTime="2026-03-01T10:00:00.000Z">2026-03-01 05:00 EST</time>');
    await db.user.update({ where: { id: ownerId }, data: { timeZone: null } });
    expect((await get("/leads?utm_campaign=spring")).html).toContain("2026-03-01 10:00 UTC");
  });

  it("redirects a filter form's empty inputs away, keeping the others", async () => {
    const res = await get("/leads?formId=&from=&to=&q=ada&status=&ownerId=&tag=&utm_source=&spam=");
    expect(res.status).toBe(302);
    expect(res.location).toBe("/leads?q=ada");
    const none = await get("/leads?formId=&q=");
    expect(none.status).toBe(302);
    expect(none.location).toBe("/leads");
  });

  it("refuses a bad filter with 422 naming it", async () => {
    const res = await get("/leads?status=pending&ownerId=mine");
    expect(res.status).toBe(422);
    expect(res.html).toContain('id="filter-status-error"');
  });

  it("counts the viewer's own leads with ownerId=mine", async () => {
    const [grace] = await idsOf("Grace");
    await db.lead.update({ where: { id: grace }, data: { ownerId } });
    expect((await get("/leads?ownerId=mine")).html).toContain("1 lead matches these filters.");
    await db.lead.update({ where: { id: grace }, data: { ownerId: null } });
  });
});

describe("bulk actions without JavaScript", () => {
  it("marks the ticked leads won, audits it, and redirects to the same list with a one-time notice", async () => {
    const [ada, grace, zoe] = await idsOf("Ada", "Grace", "Zoe");
    const res = await post("/leads?utm_campaign=spring", bulk("status:won", [ada, grace]));
    expect(res.status).toBe(302);
    expect(res.location).toBe("/leads?utm_campaign=spring");
    const statuses = await db.lead.findMany({
      where: { id: { in: [ada, grace, zoe] } },
      select: { id: true, status: true },
    });
    expect(Object.fromEntries(statuses.map((lead) => [lead.id, lead.status]))).toEqual({
      [ada]: "won",
      [grace]: "won",
      [zoe]: "new",
    });
    expect(await db.leadActivity.count({ where: { kind: "status", toValue: "won", actorId: ownerId } })).toBe(2);
    expect(await latestBulkAudit()).toEqual({
      actorId: ownerId,
      details: { action: "set_status", value: "won", ids: 2, affected: 2 },
    });

    const notice = cookieFrom(res.response);
    const list = await get(res.location!, notice);
    expect(list.html).toContain("2 leads marked won.");
    expect(list.html).toContain("3 leads match these filters.");
    // Read once: the page clears it, and the next view does not say it again.
    expect(list.response.headers.getSetCookie().join()).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/);
    expect((await get(res.location!)).html).not.toContain("marked won");
  });

  it("assigns every lead matching the filter when 'all matching' is chosen", async () => {
    // Ticks do not matter when the whole filter is chosen.
    const res = await post(
      "/leads?utm_campaign=summer",
      bulk(`owner:${agentId}`, await idsOf("Ada"), { filter: "utm_campaign=summer", scope: "all" }),
    );
    expect(res.status, res.html.slice(0, 300)).toBe(302);
    expect(res.location).toBe("/leads?utm_campaign=summer");
    const owners = await db.lead.findMany({ select: { ownerId: true, utmCampaign: true } });
    expect(owners.filter((lead) => lead.ownerId === agentId).map((lead) => lead.utmCampaign)).toEqual([
      "summer",
      "summer",
    ]);
    expect((await latestBulkAudit()).details).toEqual({
      action: "assign",
      value: agentId,
      filter: { utm_campaign: "summer", spam: "false" },
      affected: 2,
    });
    expect((await get(res.location!, cookieFrom(res.response))).html).toContain("2 leads assigned to Alex Agent.");

    const undo = await post("/leads", bulk("owner:none", [], { filter: "utm_campaign=summer", scope: "all" }));
    expect(undo.status).toBe(302);
    expect(await db.lead.count({ where: { ownerId: { not: null } } })).toBe(0);
  });

  it("acts on every lead of an unfiltered view when 'all matching' is chosen there, whatever its page size", async () => {
    // The page's explicit choice is sent as `all`: the API refuses an empty filter without it.
    const total = await db.lead.count({ where: { isSpam: false } });
    const res = await post("/leads?limit=10", bulk("tag", [], { filter: "limit=10", scope: "all", tag: "everyone" }));
    expect(res.status, res.html.slice(0, 300)).toBe(302);
    expect(res.location).toBe("/leads?limit=10");
    expect(await db.leadTag.count({ where: { tag: "everyone" } })).toBe(total);
    const untag = await post("/leads", bulk("untag", [], { filter: "", scope: "all", tag: "everyone" }));
    expect(untag.status).toBe(302);
    expect(await db.leadTag.count({ where: { tag: "everyone" } })).toBe(0);
  });

  it("adds and removes a tag on the ticked leads", async () => {
    const [ada, zoe] = await idsOf("Ada", "Zoe");
    const tagged = await post("/leads", bulk("tag", [ada, zoe], { tag: " Hot  Lead " }));
    expect(tagged.status).toBe(302);
    expect(await db.leadTag.count({ where: { tag: "hot lead" } })).toBe(2);
    expect((await get(tagged.location!, cookieFrom(tagged.response))).html).toContain("2 leads tagged “hot lead”.");
    const untagged = await post("/leads", bulk("untag", [zoe], { tag: "hot lead" }));
    expect((await get(untagged.location!, cookieFrom(untagged.response))).html).toContain(
      "Tag “hot lead” removed from 1 lead.",
    );
    expect(await db.leadTag.count({ where: { tag: "hot lead" } })).toBe(1);
  });

  it("asks before deleting, and deletes only after the confirmation", async () => {
    const [zoe] = await idsOf("Zoe");
    const asked = await post("/leads?utm_campaign=spring", bulk("delete", [zoe]));
    expect(asked.status).toBe(200);
    expect(asked.html).toContain("Delete 1 lead?");
    expect(asked.html).toContain('name="confirmed" value="yes"');
    expect(asked.html).toContain(`<input type="hidden" name="ids" value="${zoe}"/>`);
    expect(await db.lead.count({ where: { id: zoe } })).toBe(1);

    const done = await post("/leads?utm_campaign=spring", bulk("delete", [zoe], { extra: [["confirmed", "yes"]] }));
    expect(done.status).toBe(302);
    expect(await db.lead.count({ where: { id: zoe } })).toBe(0);
    expect((await get(done.location!, cookieFrom(done.response))).html).toContain("1 lead deleted.");
  });

  it("refuses with 422 naming the field, keeping the ticks", async () => {
    const [ada] = await idsOf("Ada");
    const cases: Array<[Fields, string]> = [
      [bulk("status:won", []), "bulk-ids-error"],
      [bulk("", [ada]), "bulk-operation-error"],
      [bulk("status:pending", [ada]), "bulk-operation-error"],
      [bulk("tag", [ada]), "bulk-tag-error"],
      [bulk("owner:no-such-user", [ada]), "bulk-operation-error"],
    ];
    for (const [fields, errorId] of cases) {
      const res = await post("/leads?utm_campaign=spring", fields);
      expect(res.status, errorId).toBe(422);
      expect(res.html).toContain(`id="${errorId}"`);
      // Still the filtered list.
      expect(res.html).toMatch(/name="utm_campaign"[^>]*value="spring"/);
    }
    const kept = await post("/leads?utm_campaign=spring", bulk("", [ada]));
    expect(kept.html).toMatch(new RegExp(`<input(?=[^>]*value="${ada}")(?=[^>]*checked="")[^>]*>`));
    expect((await post("/leads", [["intent", "nonsense"]])).status).toBe(400);
  });
});

describe("exporting the selection", () => {
  it("sends the ticked rows to the export by id, and 'all matching' to the filter's export", async () => {
    const [ada, grace] = await idsOf("Ada", "Grace");
    const ticked = await post("/leads", [["intent", "export"], ...bulk("", [ada, grace]).slice(1)]);
    expect(ticked.status).toBe(302);
    expect(ticked.location).toBe(`/api/leads/export?format=csv&spam=all&ids=${ada},${grace}`);
    const csv = await get(ticked.location!);
    expect(csv.status).toBe(200);
    expect(csv.html.trim().split("\n")).toHaveLength(3);

    const all = await post("/leads", [
      ["intent", "export"],
      ["scope", "all"],
      ["filter", "utm_campaign=spring&limit=10"],
    ]);
    expect(all.location).toBe("/api/leads/export?format=csv&utm_campaign=spring");
  });

  it("is refused to an agent, who may not export", async () => {
    const agent = await loginAsStaff(server.url, { email: "alex@list.example", password: STAFF.password });
    const [ada] = await idsOf("Ada");
    const res = await post(
      "/leads",
      [
        ["intent", "export"],
        ["scope", "selected"],
        ["ids", ada],
      ],
      agent,
    );
    expect(res.status).toBe(403);
    expect(res.html).toContain("As an agent you cannot export leads.");
    expect((await get("/leads")).html).toContain("Export the selection");
    const agentPage = await fetch(`${server.url}/leads`, { headers: { Cookie: agent } });
    expect(await agentPage.text()).not.toContain("Export the selection");
  });
});

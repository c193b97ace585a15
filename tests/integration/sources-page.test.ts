// /leads/sources never shows a conversion rate over 100%: leads from plain HTML forms or the
// API have no counted view, so where leads outnumber views the rate reads "—" and the page
// says where views come from.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formViewStore } from "~/storage/index.server";
import { loginAsStaff } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;
let formId: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  const form = await createForm("Contact us", [[field("email", "Email", "email")]]);
  formId = form.id;
  const view = (utmSource: string, views: number) => ({
    formId,
    day: "2026-04-01",
    utmSource,
    utmCampaign: "",
    referrerHost: "",
    views,
  });
  // 3 views and 5 leads in all: 2 views and 1 lead from "news", 1 view and 4 leads from "flyer".
  await formViewStore.add([view("news", 2), view("flyer", 1)]);
  await createLeads(formId, [
    { data: { email: "a@example.com" }, createdAt: day("2026-04-01T10:00:00"), utmSource: "news" },
    ...["b", "c", "d", "e"].map((name) => ({
      data: { email: `${name}@example.com` },
      createdAt: day("2026-04-01T11:00:00"),
      utmSource: "flyer",
    })),
  ]);
});
afterAll(async () => {
  await server?.stop();
});

async function sourcesPage(): Promise<string> {
  const res = await fetch(`${server.url}/leads/sources?formId=${formId}&from=2026-04-01&to=2026-04-01`, {
    headers: { Cookie: cookie },
  });
  expect(res.status).toBe(200);
  return res.text();
}

describe("the sources page's conversion rates", () => {
  it("reads — where leads outnumber counted views, in the total and per source, and never passes 100%", async () => {
    const html = await sourcesPage();
    expect(html).toContain("<strong>3</strong> views, <strong>5</strong> leads");
    expect(html).not.toContain("converted)");
    expect(html).toMatch(/flyer<\/a><\/th><td[^>]*>1<\/td><td[^>]*>4<\/td><td[^>]*>—<\/td>/);
    expect(html).toMatch(/news<\/a><\/th><td[^>]*>2<\/td><td[^>]*>1<\/td><td[^>]*>50\.0%<\/td>/);
    const rates = [...html.matchAll(/>(\d+(?:\.\d)?)%</g)].map((match) => Number(match[1]));
    expect(rates.length).toBeGreaterThan(0);
    expect(Math.max(...rates)).toBeLessThanOrEqual(100);
  });

  it("says where views come from and why a rate can be missing", async () => {
    const html = await sourcesPage();
    expect(html).toContain("A view is counted when the hosted form page or a page with the embed script opens");
    expect(html).toContain("Leads from plain HTML forms, the API, or browsers counted as bots have no");
  });
});

// The dashboard speaks one way everywhere: one date format in the staff user's time zone,
// counts with the right plural, a getting-started panel until the first lead, and support
// threads that read as a conversation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatInZone } from "~/components/LocalTime";
import { createOrResetUser } from "~/staff/user.server";
import { db } from "~/storage/db.server";
import { STAFF, loginAsStaff } from "../support/http";
import { createForm, createLeads, field } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;

beforeAll(async () => {
  server = await startServer();
  await createOrResetUser({ ...STAFF, role: "owner" });
  cookie = await loginAsStaff(server.url);
});
afterAll(async () => {
  await server?.stop();
});

async function page(path: string): Promise<string> {
  const response = await fetch(`${server.url}${path}`, { headers: { Cookie: cookie } });
  expect(response.status, path).toBe(200);
  return response.text();
}

/** The page's text without tags, React's text separators and doubled spaces. */
const textOf = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");

describe("the dashboard's consistency", () => {
  it("shows getting started until the first lead, each step done when it is", async () => {
    let home = textOf(await page("/"));
    expect(home).toContain("Getting started");
    expect(home).toMatch(/To do: Create a form .* To do: Put it on your site.* To do: See your first lead/);
    expect(home).toContain("0 active forms");

    const form = await createForm("Contact", [[field("name", "Name")]]);
    home = textOf(await page("/"));
    expect(home).toMatch(/Done: Create a form .* To do: Put it on your site.* To do: See your first lead/);
    expect(home).toContain("1 active form ");
    expect(await page("/")).toContain(`href="/forms/${form.id}/share"`);

    await createLeads(form.id, [{ data: { name: "Ada" } }]);
    home = textOf(await page("/"));
    expect(home).not.toContain("Getting started");
    expect(home).toContain("1 lead collected");
  });

  it("counts one open request in the singular", async () => {
    const created = await fetch(`${server.url}/api/support-requests`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", name: "Ada", subject: "Hello", message: "Line one\nLine two" }),
    });
    expect(created.status).toBe(201);
    expect(textOf(await page("/"))).toContain("1 open request ");
  });

  it("shows every time in one format, in the user's time zone", async () => {
    await db.user.update({ where: { email: STAFF.email }, data: { timeZone: "Asia/Kolkata" } });
    const ticket = await db.ticket.findFirstOrThrow({ select: { reference: true, lastMessageAt: true } });
    const signIn = await db.auditEntry.findFirstOrThrow({ orderBy: { createdAt: "asc" }, select: { createdAt: true } });

    const expectedTicketTime = formatInZone(ticket.lastMessageAt.toISOString(), "Asia/Kolkata");
    expect(expectedTicketTime).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} GMT\+5:30$/);
    expect(textOf(await page("/support"))).toContain(expectedTicketTime);
    expect(textOf(await page(`/support/${ticket.reference}`))).toContain(expectedTicketTime);
    expect(textOf(await page("/settings/audit"))).toContain(
      formatInZone(signIn.createdAt.toISOString(), "Asia/Kolkata", true),
    );
    for (const path of ["/support", "/settings/audit", "/account/tokens", "/forms"]) {
      // Neither "… UTC" nor toUTCString()'s "… GMT".
      expect(await page(path), path).not.toMatch(/ UTC<|GMT</);
    }
    await db.user.update({ where: { email: STAFF.email }, data: { timeZone: null } });
  });

  it("shows a support thread as a conversation in the body font", async () => {
    const ticket = await db.ticket.findFirstOrThrow({ select: { reference: true } });
    const html = await page(`/support/${ticket.reference}`);
    expect(html).toMatch(/class="card message from-customer"/);
    expect(html).toContain('<div class="message-body">Line one\nLine two</div>');
    expect(html).not.toContain("<pre>Line one");
  });
});

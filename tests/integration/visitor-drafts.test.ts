// What a visitor typed into a refused no-JavaScript post waits in the database for their next
// request, which on PostgreSQL may reach another instance (decision 051).
import { afterEach, describe, expect, it } from "vitest";
import {
  DRAFT_MAX_CHARS,
  DRAFT_TTL_MS,
  deleteExpiredDrafts,
  isSettled,
  keepDraft,
  markSettled,
  newAttempt,
  takeDraft,
} from "~/capture/visitor-drafts.server";
import { db } from "~/storage/db.server";
import { newForm } from "../support/forms";
import { startServer, type TestServer } from "../support/server";

const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.kill()));
});

describe("drafts of refused posts", () => {
  it("gives the values back once, for the same form only, within 10 minutes", async () => {
    const now = Date.now();
    const token = await keepDraft("form-a", { values: { name: "Ada" } }, now);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(await takeDraft("form-b", token, now)).toBeNull();
    expect(await takeDraft("form-a", token, now + 1000)).toEqual({ values: { name: "Ada" } });
    expect(await takeDraft("form-a", token, now + 2000)).toBeNull();

    const late = await keepDraft("form-a", { values: { name: "Ada" } }, now);
    expect(await takeDraft("form-a", late, now + DRAFT_TTL_MS + 1)).toBeNull();
    expect(await takeDraft("form-a", "../../etc/passwd", now)).toBeNull();
    expect(await takeDraft("form-a", null, now)).toBeNull();
  });

  it("hands a draft to one of two requests that race for it", async () => {
    const token = await keepDraft("form-r", { values: { name: "Ada" } });
    const both = await Promise.all([takeDraft("form-r", token), takeDraft("form-r", token)]);
    expect(both.filter((draft) => draft !== null)).toEqual([{ values: { name: "Ada" } }]);
  });

  it("keeps at most DRAFT_MAX_CHARS of values, leaving out the fields past it, and never the token", async () => {
    const values = { name: "Ada", essay: "x".repeat(DRAFT_MAX_CHARS), email: "a@b.c" };
    const token = await keepDraft("form-c", { values });
    const rows = await db.visitorDraft.findMany({ where: { scope: "form-c" } });
    expect(rows.map((row) => row.key)).not.toContain(token);
    expect(await takeDraft("form-c", token)).toEqual({ values: { name: "Ada", email: "a@b.c" } });
  });

  it("remembers a settled attempt for its form only, and clears what has expired", async () => {
    const attempt = newAttempt();
    const now = Date.now();
    await markSettled("form-s", attempt, now);
    expect(await isSettled("form-s", attempt, now + 1000)).toBe(true);
    expect(await isSettled("form-t", attempt, now + 1000)).toBe(false);
    expect(await isSettled("form-s", newAttempt(), now)).toBe(false);
    await keepDraft("form-s", { values: { name: "Old" } }, now - DRAFT_TTL_MS - 1);
    expect(await deleteExpiredDrafts(now + 2 * 60 * 60_000)).toBeGreaterThanOrEqual(2);
    expect(await isSettled("form-s", attempt, now)).toBe(false);
    expect(await db.visitorDraft.count({ where: { scope: "form-s" } })).toBe(0);
  });
});

// Two instances on one database: behind a load balancer the visitor's next request may land on
// either. (SQLite is one process on one machine; the same steps run there on one server.)
describe("a refused no-JavaScript post, followed up on another instance", { timeout: 120_000 }, () => {
  it("brings the form back filled in wherever the follow-up lands", async () => {
    const formId = await newForm({ name: "Drafts" });
    const first = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "0" });
    running.push(first);
    const second = process.env.TEST_DATABASE === "postgres" ? await startServer() : first;
    if (second !== first) running.push(second);

    const refused = await fetch(`${first.url}/api/leads/submit`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "text/html",
        "Sec-Fetch-Mode": "navigate",
        Referer: `${first.url}/f/${formId}`,
      },
      body: new URLSearchParams({ formId, name: "Ada Lovelace", email: "not-an-email" }),
    });
    expect(refused.status).toBe(303);
    const location = new URL(refused.headers.get("location") ?? "", first.url);
    expect(location.searchParams.get("draft")).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(location.search).not.toContain("Lovelace"); // the values stay on the server

    const page = await fetch(`${second.url}${location.pathname}${location.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('value="Ada Lovelace"');
    expect(html).toContain('value="not-an-email"');
    // Read once: the same link shows an empty form the second time.
    const again = await (await fetch(`${second.url}${location.pathname}${location.search}`)).text();
    expect(again).not.toContain("Ada Lovelace");
  });
});

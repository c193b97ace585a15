// How the public endpoints tell a person's browser from a script, and how long what a
// visitor typed is kept after a refused no-JavaScript post.
import { describe, expect, it } from "vitest";
import { DRAFT_MAX_CHARS, DRAFT_TTL_MS, keepDraft, takeDraft } from "~/capture/visitor-drafts.server";
import { isBrowserPost, prefersHtml, safeBackLink } from "~/capture/visitor-page.server";

describe("telling a browser from a script", () => {
  it("reads a browser's navigation Accept as preferring HTML, and a script's as not", () => {
    expect(prefersHtml("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe(true);
    expect(prefersHtml("text/html,*/*")).toBe(true);
    expect(prefersHtml("application/json")).toBe(false);
    expect(prefersHtml("application/json, text/html;q=0.5")).toBe(false);
    expect(prefersHtml("text/html, application/json")).toBe(false);
    expect(prefersHtml("*/*")).toBe(false);
    expect(prefersHtml("")).toBe(false);
    expect(prefersHtml(null)).toBe(false);
    expect(prefersHtml("text/html;q=0")).toBe(false);
  });

  it("counts a navigating form post as a browser's even without an HTML Accept", () => {
    const post = (headers: Record<string, string>) =>
      new Request("http://app.test/api/leads/submit", { method: "POST", headers });
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    expect(isBrowserPost(post({ ...form, "Sec-Fetch-Mode": "navigate" }))).toBe(true);
    expect(isBrowserPost(post({ ...form, Accept: "text/html" }))).toBe(true);
    expect(isBrowserPost(post(form))).toBe(false);
    expect(isBrowserPost(post({ ...form, Accept: "*/*" }))).toBe(false);
  });

  it("links back only to plain http(s) pages", () => {
    expect(safeBackLink("https://shop.example/contact?x=1")).toBe("https://shop.example/contact?x=1");
    expect(safeBackLink("javascript:alert(1)")).toBeNull();
    expect(safeBackLink("data:text/html,hi")).toBeNull();
    expect(safeBackLink("https://user:pw@shop.example/")).toBeNull();
    expect(safeBackLink("not a url")).toBeNull();
    expect(safeBackLink(null)).toBeNull();
  });
});

describe("drafts of refused posts", () => {
  it("gives the values back once, for the same form only, within 10 minutes", () => {
    const now = Date.now();
    const token = keepDraft("form-a", { values: { name: "Ada" } }, now);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(takeDraft("form-b", token, now)).toBeNull();
    expect(takeDraft("form-a", token, now + 1000)).toEqual({ values: { name: "Ada" } });
    expect(takeDraft("form-a", token, now + 2000)).toBeNull();

    const late = keepDraft("form-a", { values: { name: "Ada" } }, now);
    expect(takeDraft("form-a", late, now + DRAFT_TTL_MS + 1)).toBeNull();
    expect(takeDraft("form-a", "../../etc/passwd", now)).toBeNull();
    expect(takeDraft("form-a", null, now)).toBeNull();
  });

  it("keeps at most DRAFT_MAX_CHARS of values, leaving out the fields past it", () => {
    const token = keepDraft("form-c", { values: { name: "Ada", essay: "x".repeat(DRAFT_MAX_CHARS), email: "a@b.c" } });
    expect(takeDraft("form-c", token)).toEqual({ values: { name: "Ada", email: "a@b.c" } });
  });
});

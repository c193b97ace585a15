// How the public endpoints tell a person's browser from a script (what a visitor typed is
// kept in the database: tests/integration/visitor-drafts.test.ts).
import { describe, expect, it } from "vitest";
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

import { describe, expect, it } from "vitest";
import { safeRedirect } from "~/staff/auth.server";
import { isCrossSiteMutation } from "~/utils/http/request.server";

const post = (headers: Record<string, string>) => new Request("http://app.test/api/forms", { method: "POST", headers });

describe("cross-site mutation check", () => {
  it("refuses a POST whose Origin or Referer names another site", () => {
    expect(isCrossSiteMutation(post({ Origin: "https://evil.example" }))).toBe(true);
    expect(isCrossSiteMutation(post({ Referer: "https://evil.example/page" }))).toBe(true);
    expect(isCrossSiteMutation(post({ Origin: "null" }))).toBe(true);
  });

  it("allows same-site posts, API clients without Origin, and reads", () => {
    expect(isCrossSiteMutation(post({ Origin: "http://app.test" }))).toBe(false);
    expect(isCrossSiteMutation(post({}))).toBe(false);
    expect(isCrossSiteMutation(new Request("http://app.test/x", { headers: { Origin: "https://evil.example" } }))).toBe(
      false,
    );
  });
});

describe("safeRedirect", () => {
  it("keeps paths on this site and falls back otherwise", () => {
    expect(safeRedirect("/leads?formId=1")).toBe("/leads?formId=1");
    expect(safeRedirect("//evil.example")).toBe("/");
    expect(safeRedirect("/\\evil.example")).toBe("/");
    expect(safeRedirect("https://evil.example", "/forms")).toBe("/forms");
    expect(safeRedirect(null)).toBe("/");
  });
});

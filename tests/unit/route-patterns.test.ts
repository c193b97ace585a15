// @vitest-environment node
// The request histogram's and log line's route (server/route-patterns.ts): the pattern a path reaches,
// ranked as Remix ranks routes, so that a label never holds an id or a path as sent.
import { describe, expect, it } from "vitest";
import { routePatterns } from "../../server/route-patterns";
import type { ServerBuild } from "@remix-run/node";

type Route = { path?: string; parentId?: string; index?: boolean };

function buildOf(routes: Record<string, Route>): ServerBuild {
  const manifest = Object.fromEntries(Object.entries(routes).map(([id, route]) => [id, { id, ...route, module: {} }]));
  return { routes: manifest } as unknown as ServerBuild;
}

const build = buildOf({
  root: { path: "" },
  "routes/_dashboard": { parentId: "root" },
  "routes/_dashboard._index": { parentId: "routes/_dashboard", index: true },
  "routes/_dashboard.forms.$id": { parentId: "routes/_dashboard", path: "forms/:id" },
  "routes/_dashboard.forms.$id.fields": { parentId: "routes/_dashboard.forms.$id", path: "fields" },
  "routes/_dashboard.forms.new": { parentId: "routes/_dashboard", path: "forms/new" },
  "routes/api.leads.submit": { parentId: "root", path: "api/leads/submit" },
  "routes/api.forms.$id.views": { parentId: "root", path: "api/forms/:id/views" },
  "routes/api.$": { parentId: "root", path: "api/*" },
  "routes/($lang).about": { parentId: "root", path: ":lang?/about" },
  "routes/embed[.]js": { parentId: "root", path: "embed.js" },
});
const { patternOf } = routePatterns(build);

describe("route patterns for the request histogram", () => {
  it("names a static path as itself, in any case and with a trailing slash", () => {
    expect(patternOf("/api/leads/submit")).toBe("/api/leads/submit");
    expect(patternOf("/API/Leads/Submit/")).toBe("/api/leads/submit");
    expect(patternOf("/")).toBe("/");
    expect(patternOf("/embed.js")).toBe("/embed.js");
    expect(patternOf("/embedxjs")).toBeNull();
  });

  it("names a path with an id by its route's pattern, a nested route's included", () => {
    expect(patternOf("/forms/cm3x9k2p40000")).toBe("/forms/:id");
    expect(patternOf("/forms/cm3x9k2p40000/fields")).toBe("/forms/:id/fields");
    expect(patternOf("/api/forms/cm3x9k2p40000/views")).toBe("/api/forms/:id/views");
  });

  it("ranks as Remix does: a static segment over a param, a param over a splat", () => {
    expect(patternOf("/forms/new")).toBe("/forms/new");
    expect(patternOf("/api/forms/x/views")).toBe("/api/forms/:id/views");
    expect(patternOf("/api/no/such/thing")).toBe("/api/*");
    expect(patternOf("/api")).toBe("/api/*");
  });

  it("takes an optional segment both ways", () => {
    expect(patternOf("/about")).toBe("/about");
    expect(patternOf("/de/about")).toBe("/:lang/about");
  });

  it("names nothing for a path no route reaches", () => {
    expect(patternOf("/wp-login.php")).toBeNull();
    expect(patternOf("/forms")).toBeNull();
    expect(patternOf("/forms/a/b/c")).toBeNull();
    expect(patternOf("/forms//fields")).toBeNull();
  });
});

// The memory of which visitors' views were counted lately (decision 039): one view per
// visitor per form per window, a cap per address, and a bound on what it holds.
import { describe, expect, it } from "vitest";
import { createVisitorWindow } from "~/capture/views/form-view-visitors.server";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const MINUTE = 60_000;

function windowAt(options: { perAddress?: number; maxEntries?: number } = {}) {
  let time = Date.parse("2026-03-01T10:00:00Z");
  const visitors = createVisitorWindow({
    windowMs: 30 * MINUTE,
    perAddress: options.perAddress ?? 20,
    maxEntries: options.maxEntries ?? 1_000,
    secret: "unit-tests-only-secret-0123456789abcdef",
    now: () => time,
  });
  return { visitors, pass: (ms: number) => (time += ms) };
}

describe("the visitor window", () => {
  it("admits a visitor's first view of a form, and none again until the window has passed", () => {
    const { visitors, pass } = windowAt();
    const ada = { ip: "203.0.113.7", userAgent: BROWSER };
    expect(visitors.admit("form-1", ada)).toBe(true);
    expect(visitors.admit("form-1", ada)).toBe(false);
    pass(29 * MINUTE);
    expect(visitors.admit("form-1", ada)).toBe(false);
    expect(visitors.admit("form-2", ada)).toBe(true);
    pass(MINUTE);
    expect(visitors.admit("form-1", ada)).toBe(true);
  });

  it("tells visitors apart by address and by User-Agent", () => {
    const { visitors } = windowAt();
    expect(visitors.admit("form-1", { ip: "203.0.113.7", userAgent: BROWSER })).toBe(true);
    expect(visitors.admit("form-1", { ip: "203.0.113.8", userAgent: BROWSER })).toBe(true);
    expect(visitors.admit("form-1", { ip: "203.0.113.7", userAgent: `${BROWSER} Edg/124.0` })).toBe(true);
    expect(visitors.admit("form-1", { ip: "203.0.113.7", userAgent: null })).toBe(true);
    expect(visitors.admit("form-1", { ip: "203.0.113.7", userAgent: null })).toBe(false);
  });

  it("admits at most perAddress visitors of a form from one address per window", () => {
    const { visitors, pass } = windowAt({ perAddress: 3 });
    const agents = Array.from({ length: 10 }, (_, i) => `${BROWSER} rotated/${i}`);
    const admitted = agents.filter((userAgent) => visitors.admit("form-1", { ip: "198.51.100.1", userAgent }));
    expect(admitted).toHaveLength(3);
    expect(visitors.admit("form-2", { ip: "198.51.100.1", userAgent: agents[9] })).toBe(true);
    expect(visitors.admit("form-1", { ip: "198.51.100.2", userAgent: agents[9] })).toBe(true);
    pass(30 * MINUTE);
    expect(visitors.admit("form-1", { ip: "198.51.100.1", userAgent: agents[9] })).toBe(true);
  });

  it("counts every visitor when the cap is 0", () => {
    const { visitors } = windowAt({ perAddress: 0 });
    for (let i = 0; i < 50; i++)
      expect(visitors.admit("form-1", { ip: "198.51.100.1", userAgent: `agent ${i}` })).toBe(true);
  });

  it("holds at most maxEntries, forgetting the oldest first, and drops what has expired", () => {
    const { visitors, pass } = windowAt({ maxEntries: 100, perAddress: 1 });
    for (let i = 0; i < 10_000; i++)
      visitors.admit(`form-${i % 7}`, { ip: `10.0.${i >> 8}.${i & 255}`, userAgent: `agent ${i}` });
    expect(visitors.size()).toEqual({ visitors: 100, addresses: 100 });
    // The newest are still remembered, the first long forgotten.
    expect(visitors.admit("form-3", { ip: "10.0.39.15", userAgent: "agent 9999" })).toBe(false);
    expect(visitors.admit("form-0", { ip: "10.0.0.0", userAgent: "agent 0" })).toBe(true);
    pass(30 * MINUTE);
    visitors.admit("form-0", { ip: "10.0.0.1", userAgent: "agent 1" });
    expect(visitors.size()).toEqual({ visitors: 1, addresses: 1 });
  });
});

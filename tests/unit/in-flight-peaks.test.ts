// @vitest-environment node
// The server's recent peak of requests in flight, which background work yields on: a burst
// answered all at once by a group commit must not make a saturated server look idle.
import { describe, expect, it } from "vitest";
import { inFlightPeaks } from "../../server/app-server";

/** A clock the test moves by hand. */
function manualClock() {
  let now = 1_000_000;
  return { read: () => now, advance: (ms: number) => (now += ms) };
}

describe("the recent peak of requests in flight", () => {
  it("remembers 40 requests for a quarter second and more after they were all answered", () => {
    const clock = manualClock();
    const peaks = inFlightPeaks(250, clock.read);
    for (let count = 1; count <= 40; count++) peaks.note(count);
    // The batch committed: every request answered at once.
    expect(peaks.recent(0)).toBe(40);
    clock.advance(300);
    expect(peaks.recent(0)).toBe(40);
    clock.advance(300);
    expect(peaks.recent(0)).toBe(0);
  });

  it("never reports fewer than are in flight now, and forgets a burst after a long quiet", () => {
    const clock = manualClock();
    const peaks = inFlightPeaks(250, clock.read);
    peaks.note(3);
    expect(peaks.recent(5)).toBe(5);
    peaks.note(30);
    clock.advance(10_000);
    expect(peaks.recent(1)).toBe(1);
  });
});

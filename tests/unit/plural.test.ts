import { describe, expect, it } from "vitest";
import { plural } from "~/utils/plural";

describe("plural", () => {
  it("takes the singular for one and the plural otherwise", () => {
    expect(plural(1, "open request")).toBe("1 open request");
    expect(plural(0, "open request")).toBe("0 open requests");
    expect(plural(2, "lead")).toBe("2 leads");
    expect(plural(1204, "lead")).toBe("1,204 leads");
  });

  it("takes an irregular plural when given one", () => {
    expect(plural(3, "delivery", "deliveries")).toBe("3 deliveries");
    expect(plural(1, "delivery", "deliveries")).toBe("1 delivery");
  });
});

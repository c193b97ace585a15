// The accent colour's rule: white button text on it must reach WCAG AA (4.5:1).
import { describe, expect, it } from "vitest";
import { AccentColorSchema, contrastWithWhite } from "~/brand/brand-schema";

describe("the accent colour", () => {
  it("measures white text's contrast as WCAG does", () => {
    expect(contrastWithWhite("#000000")).toBeCloseTo(21, 5);
    expect(contrastWithWhite("#ffffff")).toBeCloseTo(1, 5);
    expect(contrastWithWhite("#767676")).toBeCloseTo(4.54, 2);
  });

  it("takes #rrggbb with enough contrast, lower-cased, and refuses the rest saying why", () => {
    expect(AccentColorSchema.parse(" #0A7D5A ")).toBe("#0a7d5a");
    expect(AccentColorSchema.safeParse("#777777").error?.issues[0].message).toMatch(
      /^White button text on #777777 has too little contrast \(4\.48:1, WCAG AA needs 4\.5:1\)/,
    );
    expect(AccentColorSchema.safeParse("red").error?.issues.map((issue) => issue.message)).toEqual([
      "Use a colour of the form #rrggbb.",
    ]);
  });
});

// A consent field's text (decision 065): only [label](http(s)://…) is a link; anything else
// written like a link is refused at save, and no other markup exists.
import { describe, expect, it } from "vitest";
import { consentParts, consentPlainText, consentTextProblems } from "~/forms/schema/consent-text";

describe("consent text", () => {
  it("turns [label](https://…) into links and leaves everything else as text", () => {
    expect(consentParts("I agree to the [terms](https://example.com/t) & <b>more</b>.")).toEqual([
      { text: "I agree to the " },
      { text: "terms", href: "https://example.com/t" },
      { text: " & <b>more</b>." },
    ]);
    expect(consentPlainText("See [policy](http://example.com/p).")).toBe("See policy (http://example.com/p).");
    expect(consentTextProblems("See [policy](http://example.com/p) and [x] alone.")).toEqual([]);
  });

  it("refuses every link that is not a plain http(s) address", () => {
    for (const text of [
      "[a](javascript:alert(1))",
      "[a](JavaScript:alert`1`)",
      "[a](data:text/html,<script>)",
      "[a](vbscript:x)",
      "[a](//evil.example)",
      "[a](https://example.com/a b)",
      "[a](",
    ]) {
      expect(consentTextProblems(text), text).toHaveLength(1);
      expect(
        consentParts(text).some((part) => "href" in part),
        text,
      ).toBe(false);
    }
  });
});

// An address found in text as a whole address (decision 069): not inside a longer one, and found
// where JSON escapes a line break or tab just before it.
import { describe, expect, it } from "vitest";
import { namesAddress, replaceAddress } from "~/storage/person-store.server";

describe("namesAddress", () => {
  it.each([
    ["bob@example.com", true],
    ["Write to BOB@Example.com.", true],
    ["<bob@example.com>", true],
    [JSON.stringify({ message: "line one\nbob@example.com" }), true],
    [JSON.stringify({ message: "\tbob@example.com\n" }), true],
    ["notbob@example.com", false],
    ["a.bob@example.com", false],
    ["bob@example.com.au", false],
    ["bob@example.community", false],
  ])("%j: %s", (text, found) => {
    expect(namesAddress(text, "bob@example.com")).toBe(found);
  });

  it("takes the address's own dots and pluses as they are, not as patterns", () => {
    expect(namesAddress("ada+news@example.com", "ada+news@example.com")).toBe(true);
    expect(namesAddress("adaanews@exampleXcom", "ada+news@example.com")).toBe(false);
  });
});

describe("replaceAddress", () => {
  it("replaces the whole address in any case, and leaves a longer one alone", () => {
    expect(replaceAddress("person:Bob@Example.com, notbob@example.com", "bob@example.com", "HASH")).toBe(
      "person:HASH, notbob@example.com",
    );
  });
});

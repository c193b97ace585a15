// A lead's page is titled by the person: the name typed into the form, found by the usual
// field keys and labels; a form that asks no name gives null (the page falls back).
import { describe, expect, it } from "vitest";
import { personName } from "~/leads/lead-name";

const fields = (...pairs: Array<[string, string]>) => pairs.map(([key, label]) => ({ key, label }));

describe("personName", () => {
  it("takes a name field by its key or its label", () => {
    expect(personName({ name: "Ada Lovelace" }, fields(["name", "Name"]))).toBe("Ada Lovelace");
    expect(personName({ full_name: " Grace  Hopper " }, fields(["full_name", "Full name"]))).toBe("Grace Hopper");
    expect(personName({ who: "Linus" }, fields(["who", "Your name"]))).toBe("Linus");
  });

  it("joins a first and a last name", () => {
    const form = fields(["first_name", "First name"], ["last_name", "Last name"]);
    expect(personName({ first_name: "Katherine", last_name: "Johnson" }, form)).toBe("Katherine Johnson");
    expect(personName({ first_name: "Katherine" }, form)).toBe("Katherine");
  });

  it("gives null when the form asks no name or it was left empty, and never takes a company name", () => {
    expect(personName({ email: "a@example.com" }, fields(["email", "Email"]))).toBeNull();
    expect(personName({ name: "  " }, fields(["name", "Name"]))).toBeNull();
    expect(personName({ company_name: "Acme" }, fields(["company_name", "Company name"]))).toBeNull();
    expect(personName({ name: ["a", "b"] }, fields(["name", "Name"]))).toBeNull();
  });

  it("cuts a very long name", () => {
    const name = personName({ name: "x".repeat(500) }, fields(["name", "Name"]))!;
    expect(name).toHaveLength(80);
    expect(name.endsWith("…")).toBe(true);
  });
});

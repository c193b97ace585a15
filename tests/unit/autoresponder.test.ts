// The autoresponder's text is the owner's: placeholders are checked at save, and a visitor's
// value goes in cleaned (no links, no markup, no line breaks in the subject) and cut.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  AutoresponderFormSchema,
  AutoresponderSchema,
  autoresponderOfForm,
  autoresponderProblems,
  cleanValue,
  placeholdersOf,
  renderAutoresponse,
} from "~/forms/autoresponder";

const fields = [
  { key: "name", type: "text" },
  { key: "email", type: "email" },
  { key: "plan", type: "select" },
  { key: "message", type: "textarea" },
];
const settings = (over: Record<string, unknown> = {}) =>
  AutoresponderSchema.parse({ enabled: true, subject: "Thanks {{name}}", body: "Hello from {{form.name}}.", ...over });

describe("autoresponder placeholders", () => {
  it("finds each placeholder once, spaces inside the braces allowed", () => {
    expect(placeholdersOf("{{ name }} {{form.name}} {{name}} {{plan}}")).toEqual(["name", "form.name", "plan"]);
  });

  it("accepts {{name}} and {{form.name}} and names an unknown or unlisted placeholder", () => {
    expect(autoresponderProblems(settings(), fields)).toEqual([]);
    const problems = autoresponderProblems(settings({ body: "Your plan: {{plan}}, {{message}}" }), fields);
    expect(problems.map((problem) => problem.path)).toEqual(["autoresponder.body", "autoresponder.body"]);
    expect(problems[0].message).toContain("{{plan}}");
    expect(problems[1].message).toContain("{{message}}");
    expect(autoresponderProblems(settings({ body: "{{plan}}", allowFields: ["plan"] }), fields)).toEqual([]);
  });

  it("refuses a textarea or a missing field in allowFields", () => {
    const problems = autoresponderProblems(settings({ allowFields: ["message", "nope"] }), fields);
    expect(problems).toEqual([
      { path: "autoresponder.allowFields.0", message: expect.stringContaining("free text") },
      { path: "autoresponder.allowFields.1", message: expect.stringContaining('"nope"') },
    ]);
  });
});

describe("renderAutoresponse", () => {
  const render = (name: string | null, over: Record<string, unknown> = {}, data = {}) =>
    renderAutoresponse(settings(over), { formName: "Contact", personName: name, data });

  it("fills the name and the form's name as plain text", () => {
    expect(render("Ada Lovelace")).toEqual({ subject: "Thanks Ada Lovelace", text: "Hello from Contact." });
    expect(render(null).subject).toBe("Thanks");
  });

  it("takes links and markup out of a name and cuts it to 40 characters", () => {
    expect(cleanValue('<a href="https://evil.example">Win</a> cash at https://evil.example/x now', 40)).toBe(
      "Win cash at now",
    );
    expect(cleanValue("visit evil.com today", 40)).toBe("visit evil com today");
    expect(cleanValue("mail me@evil.com", 40)).toBe("mail");
    expect(cleanValue("x".repeat(100), 40)).toHaveLength(40);
    expect(render("y".repeat(300)).subject).toBe(`Thanks ${"y".repeat(40)}`);
  });

  it("never lets a line break into the subject", () => {
    const rendered = render("Ada\r\nBcc: victim@example.com", { subject: "Hi {{name}}\r\nX-Evil: 1" });
    expect(rendered.subject).not.toMatch(/[\r\n]/);
    expect(rendered.subject).toBe("Hi Ada Bcc: X-Evil: 1");
  });

  it("fills an allowed field and leaves out an unlisted one", () => {
    const data = { plan: "Pro", message: "Buy pills at pills.example" };
    expect(render("A", { body: "{{plan}}/{{message}}", allowFields: ["plan"] }, data).text).toBe("Pro/");
  });
});

describe("the builder's autoresponder form", () => {
  const parse = (entries: [string, string][]) => {
    const form = new FormData();
    for (const [name, value] of entries) form.append(name, value);
    return parseWithZod(form, { schema: AutoresponderFormSchema });
  };

  it("stands for no autoresponder when empty and off", () => {
    const submission = parse([]);
    expect(submission.status).toBe("success");
    if (submission.status === "success") expect(autoresponderOfForm(submission.value)).toBeNull();
  });

  it("keeps a switched-off autoresponder's words, and takes one ticked field as a list", () => {
    const submission = parse([
      ["subject", "Thanks {{name}}"],
      ["body", "About {{company}}"],
      ["allowFields", "company"],
    ]);
    expect(submission.status).toBe("success");
    if (submission.status !== "success") return;
    expect(autoresponderOfForm(submission.value)).toEqual({
      enabled: false,
      subject: "Thanks {{name}}",
      body: "About {{company}}",
      replyTo: undefined,
      allowFields: ["company"],
    });
  });

  it("refuses a switched-on autoresponder without its subject and text, naming each", () => {
    const submission = parse([["enabled", "on"]]);
    expect(submission.status).toBe("error");
    expect(submission.reply().error).toEqual({ subject: ["Give the subject."], body: ["Give the text."] });
  });

  it("refuses a subject without a text even when off, and a malformed reply-to", () => {
    const submission = parse([
      ["subject", "Thanks"],
      ["replyTo", "not an address"],
    ]);
    expect(submission.status).toBe("error");
    expect(Object.keys(submission.reply().error ?? {}).sort()).toEqual(["body", "replyTo"]);
  });
});

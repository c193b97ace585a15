// The builder's embed snippet for a form in steps with a condition: each step a fieldset the
// script shows one at a time, and the conditional field marked with its condition, not
// required of the browser (the server decides).
import { describe, expect, it } from "vitest";
import { scriptSnippet } from "~/components/EmbedSnippet";
import { FieldsSchema } from "~/forms/schema/form-schema";

const fields = FieldsSchema.parse([
  { key: "email", label: "Email", type: "email", required: true },
  { key: "reason", label: "Reason", type: "select", options: ["sales", "support"], required: true },
  {
    key: "company",
    label: "Company",
    type: "text",
    required: true,
    step: 2,
    showIf: { field: "reason", equals: "sales" },
  },
]);

describe("the embed snippet", () => {
  it("groups a form in steps by fieldset, titled, and marks a conditional field with its condition", () => {
    const code = scriptSnippet("form1", "https://app.example", fields, { stepTitles: ["You", "Company"] });
    expect(code).toContain('<fieldset data-lc-step="1">\n    <legend>You</legend>');
    expect(code).toContain('<fieldset data-lc-step="2">\n    <legend>Company</legend>');
    expect(code).toContain(
      '<label data-lc-show-if="{&quot;field&quot;:&quot;reason&quot;,&quot;equals&quot;:&quot;sales&quot;}">Company <span aria-hidden="true">*</span> <input type="text" name="company"></label>',
    );
    expect(code).toContain('<input type="email" name="email" required>');
  });

  it("keeps a form of one step flat", () => {
    const code = scriptSnippet("form1", "https://app.example", [fields[0]]);
    expect(code).not.toContain("fieldset");
  });

  it("draws a consent's text escaped with its http(s) links, and the privacy notice under the Send button", () => {
    const consent = FieldsSchema.parse([
      {
        key: "terms",
        label: "Terms",
        type: "consent",
        required: true,
        text: "I <agree> to the [terms](https://x.example/t?a=1&b=2).",
      },
    ]);
    const code = scriptSnippet("form1", "https://app.example", consent, { privacyUrl: "https://x.example/privacy" });
    expect(code).toContain(
      '<label><input type="checkbox" name="terms" required> I &lt;agree&gt; to the <a href="https://x.example/t?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">terms</a>. <span aria-hidden="true">*</span></label>',
    );
    expect(code).toMatch(
      /<button type="submit">Send<\/button>\n {2}<p class="lc-privacy"><a href="https:\/\/x.example\/privacy" target="_blank" rel="noopener noreferrer">Privacy notice<\/a><\/p>\n<\/form>/,
    );
  });

  it("posts a form with a file field as multipart, its input taking the field's types and number of files", () => {
    const withFile = FieldsSchema.parse([
      { key: "name", label: "Name", type: "text" },
      { key: "docs", label: "Documents", type: "file", accept: [".pdf", ".png"], maxFiles: 3, required: true },
    ]);
    const code = scriptSnippet("form1", "https://app.example", withFile);
    expect(code).toMatch(
      /<form class="lc-form" method="post" action="https:\/\/app.example\/api\/leads\/submit" enctype="multipart\/form-data" /,
    );
    expect(code).toContain('<input type="file" name="docs" accept=".pdf,.png" multiple required>');
    expect(scriptSnippet("form1", "https://app.example", [withFile[0]])).not.toContain("enctype");
  });
});

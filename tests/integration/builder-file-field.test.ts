// The builder's editor for a file field's settings (decision 064): the types it accepts, its
// largest file and its number of files, set by a plain post as a browser without JavaScript
// sends it (every input of the editor, whatever the type), checked by the API's own schema,
// and refused by name; and a file field kept on the last step of a form in steps.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "~/storage/db.server";
import { loginAsStaff, postForm } from "../support/http";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;
let cookie: string;
let formId: string;

beforeAll(async () => {
  server = await startServer();
  cookie = await loginAsStaff(server.url);
  const created = await post("/forms", { intent: "create", name: "Applications" });
  formId = created.location!.split("/")[2];
});
afterAll(async () => {
  await server?.stop();
});

const post = (path: string, fields: Record<string, string>) =>
  postForm(`${server.url}${path}`, fields, { Cookie: cookie });

/** Every input of the field editor, as a page without JavaScript posts them. */
const editor = (extra: Record<string, string>) => ({
  intent: "add-field",
  label: "CV",
  key: "",
  type: "file",
  minLength: "",
  maxLength: "",
  min: "",
  max: "",
  pattern: "",
  options: "",
  text: "",
  accept: "",
  maxSizeMb: "",
  maxFiles: "",
  placeholder: "",
  helpText: "",
  defaultValue: "",
  ...extra,
});

const fields = async () =>
  (await db.form.findUnique({ where: { id: formId }, select: { fields: true } }))!.fields as Array<
    Record<string, unknown>
  >;

describe("a file field's settings in the builder, without JavaScript", () => {
  it("saves the accepted types, the largest file and the number of files, and shows them again", async () => {
    const added = await post(
      `/forms/${formId}/fields`,
      editor({ accept: ".pdf\r\nimage/*", maxSizeMb: "5", maxFiles: "2" }),
    );
    expect(added.status, added.html).toBe(200);
    expect((await fields()).at(-1)).toEqual({
      key: "cv",
      label: "CV",
      type: "file",
      required: false,
      accept: [".pdf", "image/*"],
      maxSizeMb: 5,
      maxFiles: 2,
    });
    const page = await fetch(`${server.url}/forms/${formId}/fields`, { headers: { Cookie: cookie } });
    const html = await page.text();
    expect(html).toContain("Accepted types (file fields, one per line)");
    expect(html).toMatch(/name="accept"[^>]*>\.pdf\nimage\/\*<\/textarea>/);
    expect(html).toMatch(/name="maxSizeMb"[^>]*value="5"|value="5"[^>]*name="maxSizeMb"/);
  });

  it("refuses settings the API would refuse, each message by its input, the typed values kept, nothing saved", async () => {
    const before = await fields();
    const refused = await post(`/forms/${formId}/fields`, {
      ...editor({ accept: ".pdf\nnot a type", maxSizeMb: "30", maxFiles: "11" }),
      intent: "update-field",
      fieldKey: "cv",
      key: "cv",
    });
    expect(refused.status).toBe(422);
    expect(refused.html).toContain(
      "Line 2: Use an extension such as .pdf, a type such as image/png, or a family such as image/*.",
    );
    expect(refused.html).toContain("A file may weigh at most 25 MB.");
    expect(refused.html).toContain("A field takes at most 10 files.");
    expect(refused.html).toMatch(/name="accept"[^>]*>\.pdf\nnot a type<\/textarea>/);
    expect(await fields()).toEqual(before);
  });

  it("keeps a file field on the last step: a step after it is refused with the reason", async () => {
    const before = await fields();
    const later = await post(`/forms/${formId}/fields`, editor({ label: "Phone", type: "tel", step: "2" }));
    expect(later.status).toBe(422);
    expect(later.html).toContain("&quot;cv&quot; is a file field on step 1: file fields go on the last step (2)");
    expect(await fields()).toEqual(before);
  });
});

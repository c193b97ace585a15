// @vitest-environment jsdom
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { FormFields } from "~/components/FormFields";
import { FieldsSchema } from "~/forms/schema/form-schema";

afterEach(cleanup);

const fields = FieldsSchema.parse([
  { key: "name", label: "Name", type: "text", required: true, placeholder: "Ada Lovelace" },
  { key: "email", label: "Email", type: "email", required: true, helpText: "We reply here." },
  { key: "size", label: "Team size", type: "number", min: 1, max: 500 },
  { key: "topic", label: "Topic", type: "select", options: ["Sales", "Support"] },
  { key: "channels", label: "Channels", type: "multiselect", options: ["By email", "By phone"] },
  { key: "consent", label: "I agree to be contacted", type: "checkbox", required: true },
  { key: "campaign", label: "Campaign", type: "hidden", defaultValue: "spring" },
]);

describe("FormFields", () => {
  it("renders each field type as the matching control, named by its key", () => {
    const { container } = render(<FormFields fields={fields} />);
    expect(screen.getByLabelText(/^Name/)).toHaveProperty("required", true);
    expect(screen.getByLabelText(/^Email/)).toHaveProperty("type", "email");
    expect(screen.getByLabelText(/^Team size/)).toHaveProperty("type", "number");
    expect(screen.getByLabelText(/^Team size/).getAttribute("max")).toBe("500");
    expect(screen.getByLabelText(/^Topic/).tagName).toBe("SELECT");
    expect(screen.getAllByRole("checkbox").map((box) => box.getAttribute("name"))).toEqual([
      "channels",
      "channels",
      "consent",
    ]);
    const hidden = container.querySelector('input[type="hidden"][name="campaign"]') as HTMLInputElement;
    expect(hidden.value).toBe("spring");
    expect(screen.getByText("We reply here.")).toBeTruthy();
  });

  it("shows given values and errors next to their fields", () => {
    render(
      <FormFields
        fields={fields}
        values={{ name: "Grace", channels: ["By phone"] }}
        errors={{ email: "Enter a valid email address." }}
      />,
    );
    expect((screen.getByLabelText(/^Name/) as HTMLInputElement).value).toBe("Grace");
    const email = screen.getByLabelText(/^Email/);
    expect(email.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Enter a valid email address.").id).toBe("field-email-error");
    expect((screen.getByLabelText("By phone") as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText("By email") as HTMLInputElement).checked).toBe(false);
  });
});

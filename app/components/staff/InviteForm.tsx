// /settings/staff's invitation form: a plain form post without JavaScript, validated in the
// browser with the schema the action checks again (Conform); refusals show next to the
// fields with what was typed kept.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { FieldError } from "~/components/form-builder/shared";
import { STAFF_ROLES } from "~/staff/policy";
import { InviteFormSchema } from "~/staff/staff-schemas";

type Name = "email" | "name" | "role";

export function InviteForm({
  ownerChoice,
  lastResult,
}: {
  ownerChoice: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "invite",
    lastResult,
    defaultValue: { role: "agent" },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: InviteFormSchema }),
  });
  const errorOf = (name: Name) => fields[name].errors?.join(" ");
  const inputOf = (name: Name) => ({
    id: `invite-${name}`,
    name,
    defaultValue: fields[name].initialValue as string | undefined,
    ...(errorOf(name) ? { "aria-invalid": true as const, "aria-describedby": `invite-${name}-error` } : {}),
  });
  return (
    <section className="card" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <Form method="post" aria-label="Invite someone" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="invite" />
        <label htmlFor="invite-email">Email</label>
        <input key={fields.email.key} {...inputOf("email")} type="email" required />
        <FieldError id="invite-email-error" message={errorOf("email")} />
        <label htmlFor="invite-name">Name (optional)</label>
        <input key={fields.name.key} {...inputOf("name")} />
        <FieldError id="invite-name-error" message={errorOf("name")} />
        <label htmlFor="invite-role">Role</label>
        <select key={fields.role.key} {...inputOf("role")}>
          {STAFF_ROLES.filter((role) => role !== "owner" || ownerChoice).map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        <FieldError id="invite-role-error" message={errorOf("role")} />
        <p>
          <button type="submit">Send the invitation</button>
        </p>
      </Form>
    </section>
  );
}

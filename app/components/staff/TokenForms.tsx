// /account/tokens' parts (app/routes/_dashboard.account_.tokens.tsx): the new token's form,
// validated in the browser with the fields the server checks (Conform) and posted as a plain
// form without JavaScript, and the list of tokens with a revoke button each.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { FieldError } from "~/components/form-builder/shared";
import { LocalTime } from "~/components/LocalTime";
import { NewTokenFormSchema } from "~/staff/staff-schemas";

export function NewTokenForm({
  scopes,
  needsPassword,
  lastResult,
}: {
  scopes: string[];
  needsPassword: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "new-token",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NewTokenFormSchema }),
  });
  type Name = "name" | "scopes" | "expiresOn" | "password";
  const errorOf = (name: Name) => Object.values(fields[name].allErrors).flat().join(" ") || undefined;
  const described = (name: Name) =>
    errorOf(name) ? { "aria-invalid": true as const, "aria-describedby": `token-${name}-error` } : {};
  const checked = fields.scopes.initialValue;
  return (
    <section className="card" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">New token</h2>
      <Form method="post" aria-label="New token" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="create" />
        <label htmlFor="token-name">Name</label>
        <input
          id="token-name"
          name="name"
          required
          maxLength={100}
          key={fields.name.key}
          defaultValue={fields.name.initialValue as string | undefined}
          {...described("name")}
        />
        <FieldError id="token-name-error" message={errorOf("name")} />
        <fieldset key={fields.scopes.key} {...described("scopes")}>
          <legend>Scopes</legend>
          {scopes.map((scope) => (
            <label key={scope}>
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                defaultChecked={Array.isArray(checked) ? checked.includes(scope) : checked === scope}
              />{" "}
              {scope}
            </label>
          ))}
        </fieldset>
        <FieldError id="token-scopes-error" message={errorOf("scopes")} />
        <label htmlFor="token-expires">Expires on (optional)</label>
        <input
          id="token-expires"
          name="expiresOn"
          type="date"
          key={fields.expiresOn.key}
          defaultValue={fields.expiresOn.initialValue as string | undefined}
          {...described("expiresOn")}
        />
        <FieldError id="token-expiresOn-error" message={errorOf("expiresOn")} />
        {needsPassword ? <PasswordAgain error={errorOf("password")} /> : null}
        <p>
          <button type="submit">Create the token</button>
        </p>
      </Form>
    </section>
  );
}

/** Sudo mode: the password, when it was last entered more than 10 minutes ago. */
function PasswordAgain({ error }: { error?: string }) {
  return (
    <>
      <label htmlFor="token-password">Your password</label>
      <p className="muted" id="token-password-hint">
        A new token needs your password when you last entered it more than 10 minutes ago.
      </p>
      <input
        id="token-password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "token-password-hint token-password-error" : "token-password-hint"}
      />
      <FieldError id="token-password-error" message={error} />
    </>
  );
}

type Token = {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
};

export function TokensTable({ tokens }: { tokens: Token[] }) {
  return (
    <table aria-label="Your tokens">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <tr key={token.id}>
            <td data-label="Name">{token.name}</td>
            <td data-label="Scopes">{token.scopes.join(", ")}</td>
            <td data-label="Created">
              <LocalTime iso={token.createdAt} />
            </td>
            <td data-label="Last used">{token.lastUsedAt ? <LocalTime iso={token.lastUsedAt} /> : "never"}</td>
            <td data-label="Expires">{token.expiresAt ? <LocalTime iso={token.expiresAt} /> : "never"}</td>
            <td data-label="State">
              {token.revokedAt ? (
                "revoked"
              ) : (
                <Form method="post">
                  <input type="hidden" name="intent" value="revoke" />
                  <input type="hidden" name="id" value={token.id} />
                  <button type="submit" className="danger">
                    Revoke {token.name}
                  </button>
                </Form>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

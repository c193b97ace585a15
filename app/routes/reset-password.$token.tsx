// /reset-password/:token: sets a new password from an emailed link, ends every session of
// the user, then sends them to log in. A used or expired link answers 410. A plain form
// post, validated in the browser with the server's schema too (Conform).
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ResetPasswordSchema } from "~/staff/account-schemas";
import { assertSameOrigin } from "~/staff/auth.server";
import { readResetLink, resetPassword } from "~/staff/sign-in/password-reset.server";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [
  { title: "Choose a new password · Lead Capture" },
  { name: "referrer", content: "same-origin" },
];
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

export const loader = page(async function loader({ params }: LoaderFunctionArgs) {
  const { email } = await readResetLink(params.token!);
  return { email };
});

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseWithZod(await request.formData(), { schema: ResetPasswordSchema });
  // A password is never sent back into the page, not even after a refusal.
  if (submission.status !== "success") {
    return data<SubmissionResult<string[]>>(submission.reply({ hideFields: ["password"] }), { status: 422 });
  }
  await resetPassword(params.token!, submission.value, clientIp(context));
  return redirect("/login?reset=1");
});

export default function ResetPasswordPage() {
  const { email } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({
    id: "reset-password",
    lastResult: useActionData<typeof action>() as SubmissionResult<string[]> | undefined,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetPasswordSchema }),
  });
  const error = fields.password.errors?.[0];
  return (
    <main className="centered">
      <h1>Choose a new password</h1>
      <p>For {email}. Every device logged in to this account will be logged out.</p>
      <Form method="post" {...getFormProps(form)}>
        <label htmlFor="password">New password (at least 12 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "password-error" : undefined}
        />
        {error ? (
          <p id="password-error" className="error" role="alert">
            {error}
          </p>
        ) : null}
        <p>
          <button type="submit">Set the password</button>
        </p>
      </Form>
    </main>
  );
}

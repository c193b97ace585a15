// /reset-password/:token: sets a new password from an emailed link, ends every session of
// the user, then sends them to log in. A used or expired link answers 410.
import { data, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { assertSameOrigin } from "~/staff/auth.server";
import { readResetLink, resetPassword } from "~/staff/password-reset.server";
import { DomainError } from "~/utils/domain-error";
import { page } from "~/utils/page.server";
import { clientIp } from "~/utils/request.server";
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
  const form = await request.formData();
  try {
    await resetPassword(params.token!, { password: String(form.get("password") ?? "") }, clientIp(context));
    return redirect("/login?reset=1");
  } catch (thrown) {
    if (thrown instanceof DomainError && thrown.code === "validation_failed") {
      return data({ error: thrown.details[0]?.message ?? thrown.message }, { status: 422 });
    }
    throw thrown;
  }
});

export default function ResetPasswordPage() {
  const { email } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <main className="centered">
      <h1>Choose a new password</h1>
      <p>For {email}. Every device logged in to this account will be logged out.</p>
      <Form method="post">
        <label htmlFor="password">New password (at least 12 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          aria-invalid={answer?.error ? true : undefined}
          aria-describedby={answer?.error ? "password-error" : undefined}
        />
        {answer?.error ? (
          <p id="password-error" className="error" role="alert">
            {answer.error}
          </p>
        ) : null}
        <p>
          <button type="submit">Set the password</button>
        </p>
      </Form>
    </main>
  );
}

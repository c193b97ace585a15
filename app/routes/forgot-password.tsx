// /forgot-password: asks for a reset link by email. The answer is the same whether the
// address has an account or not (docs/api/staff.md).
import { data } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { assertSameOrigin } from "~/staff/auth.server";
import { requestPasswordReset } from "~/staff/password-reset.server";
import { DomainError, RateLimited } from "~/utils/domain-error";
import { clientIp } from "~/utils/request.server";
import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Forgot your password · Lead Capture" }];

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  try {
    await requestPasswordReset({ email }, clientIp(context));
    return data({ sent: true, error: null, email });
  } catch (thrown) {
    if (thrown instanceof RateLimited) {
      return data(
        { sent: false, error: thrown.message, email },
        { status: 429, headers: { "Retry-After": String(thrown.retryAfterSeconds) } },
      );
    }
    if (thrown instanceof DomainError && thrown.code === "validation_failed") {
      return data({ sent: false, error: "Enter a valid email address.", email }, { status: 422 });
    }
    throw thrown;
  }
}

export default function ForgotPasswordPage() {
  const answer = useActionData<typeof action>();
  return (
    <main className="centered">
      <h1>Forgot your password?</h1>
      {answer?.sent ? (
        <p role="status">
          If {answer.email} has a staff account, an email with a link to choose a new password is on its way. The link
          works once, for 1 hour.
        </p>
      ) : (
        <Form method="post">
          <label htmlFor="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            defaultValue={answer?.email}
            aria-invalid={answer?.error ? true : undefined}
            aria-describedby={answer?.error ? "email-error" : undefined}
          />
          {answer?.error ? (
            <p id="email-error" className="error" role="alert">
              {answer.error}
            </p>
          ) : null}
          <p>
            <button type="submit">Send me a link</button>
          </p>
        </Form>
      )}
      <p>
        <Link to="/login">Back to log in</Link>
      </p>
    </main>
  );
}

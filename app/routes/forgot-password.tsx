// /forgot-password: asks for a reset link by email. The answer is the same whether the
// address has an account or not (docs/api/staff.md). A plain form post, validated in the
// browser with the server's schema too (Conform).
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { ForgotPasswordSchema } from "~/staff/account-schemas";
import { assertSameOrigin } from "~/staff/auth.server";
import { requestPasswordReset } from "~/staff/sign-in/password-reset.server";
import { RateLimited } from "~/utils/domain-error";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Forgot your password · Lead Capture" }];

type Answer = { reply: SubmissionResult<string[]>; sentTo?: string };

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const submission = parseWithZod(await request.formData(), { schema: ForgotPasswordSchema });
  if (submission.status !== "success") return data<Answer>({ reply: submission.reply() }, { status: 422 });
  try {
    await requestPasswordReset(submission.value, clientIp(context));
    // As typed: the page reads the same whether the address has an account or not.
    return data<Answer>({ reply: submission.reply(), sentTo: String(submission.payload.email) });
  } catch (thrown) {
    if (!(thrown instanceof RateLimited)) throw thrown;
    return data<Answer>(
      { reply: submission.reply({ fieldErrors: { email: [thrown.message] } }) },
      { status: 429, headers: { "Retry-After": String(thrown.retryAfterSeconds) } },
    );
  }
}

export default function ForgotPasswordPage() {
  const answer = useActionData<typeof action>() as Answer | undefined;
  const [form, fields] = useForm({
    id: "forgot-password",
    lastResult: answer?.reply,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ForgotPasswordSchema }),
  });
  const error = fields.email.errors?.[0];
  return (
    <main className="centered">
      <h1>Forgot your password?</h1>
      {answer?.sentTo ? (
        <p role="status">
          If {answer.sentTo} has a staff account, an email with a link to choose a new password is on its way. The link
          works once, for 1 hour.
        </p>
      ) : (
        <Form method="post" {...getFormProps(form)}>
          <label htmlFor="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            defaultValue={fields.email.initialValue as string | undefined}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "email-error" : undefined}
          />
          {error ? (
            <p id="email-error" className="error" role="alert">
              {error}
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

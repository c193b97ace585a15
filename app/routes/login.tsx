// /login: staff log in through remix-auth (its form strategy, auth.server.ts) within the
// login limits; Conform only reads the form for the page: the browser checks it with the
// strategy's own fields, and a refusal comes back next to them, with the email kept. An
// account with two-factor gets a second step asking for the code (decision 061): a signed
// cookie names the user meanwhile, never the password. A passkey signs in without either
// (decision 068, through /api/auth/passkeys/login). With single sign-on configured, a
// "Sign in with <OIDC_NAME>" link starts it (decision 062); when the owners require it, a
// non-owner's right password is refused with that advice.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { z } from "zod";
import { getBrand } from "~/brand/brand.server";
import { BrandHeader, brandStyle } from "~/components/BrandHeader";
import { PasskeySignIn } from "~/components/staff/PasskeySignIn";
import { SsoButton } from "~/components/staff/SsoButton";
import { LoginFormSchema } from "~/staff/account-schemas";
import {
  InvalidCredentialsError,
  assertSameOrigin,
  authenticator,
  getOptionalUser,
  safeRedirect,
  withLoginLimits,
} from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { endPendingSignIn, pendingSignInUser, startPendingSignIn } from "~/staff/sign-in/pending-sign-in.server";
import { refuseSignInUnderSso, SsoRequiredError } from "~/staff/sign-in/security-policy.server";
import {
  PasskeyRequiredError,
  requireSecondFactor,
  SecondFactorRequiredError,
  WrongSecondFactorError,
} from "~/staff/sign-in/two-factor.server";
import { defaultTimeZone } from "~/staff/user.server";
import { RateLimited } from "~/utils/domain-error";
import { env } from "~/utils/env.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Log in · Lead Capture" }];

export async function loader({ request }: LoaderFunctionArgs) {
  // Checked here too, so the form never carries a target the action would refuse.
  const redirectTo = safeRedirect(new URL(request.url).searchParams.get("redirectTo"), "/");
  if (await getOptionalUser(request)) throw redirect(redirectTo);
  return { redirectTo, brand: await getBrand(), sso: env.OIDC ? env.OIDC.name : null };
}

type CodeStepData = { step: "code"; redirectTo: string; error?: string };

/** The second step: the code for the user the pending sign-in names. */
async function codeStep(request: Request, form: FormData, ip: string) {
  const redirectTo = safeRedirect(form.get("redirectTo"), "/");
  const pending = await pendingSignInUser(request);
  if (!pending) {
    const message = "Your sign-in took too long. Enter your email and password again.";
    return data(parseWithZod(form, { schema: LoginFormSchema }).reply({ formErrors: [message] }), { status: 401 });
  }
  const code = String(form.get("code") ?? "").slice(0, 64);
  const refuse = (error: string, init: ResponseInit) => data<CodeStepData>({ step: "code", redirectTo, error }, init);
  try {
    const user = await withLoginLimits(ip, pending.email, async () => {
      await refuseSignInUnderSso(pending, ip);
      await requireSecondFactor(pending, code, ip);
      return pending;
    });
    await defaultTimeZone(user.id, form.get("timeZone"));
    const headers = new Headers({ "Set-Cookie": await commitUserSession(user.id, request, ip) });
    headers.append("Set-Cookie", await endPendingSignIn());
    return redirect(redirectTo, { headers });
  } catch (error) {
    if (error instanceof RateLimited) {
      const retry = { "Retry-After": String(error.retryAfterSeconds) };
      return refuse("Too many wrong codes. Wait a few minutes and try again.", { status: 429, headers: retry });
    }
    if (error instanceof SsoRequiredError) return refuse(error.message, { status: 403 });
    if (error instanceof SecondFactorRequiredError) return refuse("Enter the code.", { status: 401 });
    if (error instanceof WrongSecondFactorError)
      return refuse("That code is wrong or was already used.", { status: 401 });
    throw error;
  }
}

export async function action({ request, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const form = await request.clone().formData();
  if (form.get("intent") === "code") return codeStep(request, form, clientIp(context));
  // Only to answer with: remix-auth reads and checks the form itself, within the limits.
  const submission = parseWithZod(form, { schema: LoginFormSchema });
  const email = String(form.get("email") ?? "");
  const redirectTo = safeRedirect(form.get("redirectTo"), "/");
  try {
    const user = await withLoginLimits(clientIp(context), email, async () => {
      const found = await authenticator.authenticate("form", request);
      await refuseSignInUnderSso(found, clientIp(context));
      await requireSecondFactor(found, undefined, clientIp(context));
      return found;
    });
    await defaultTimeZone(user.id, form.get("timeZone"));
    const cookie = await commitUserSession(user.id, request, clientIp(context));
    return redirect(redirectTo, { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (error instanceof SecondFactorRequiredError) {
      const headers = { "Set-Cookie": await startPendingSignIn(error.userId) };
      return data<CodeStepData>({ step: "code", redirectTo }, { headers });
    }
    // The password never comes back into the page.
    const refuse = (message: string, init: ResponseInit) =>
      data<SubmissionResult<string[]>>(submission.reply({ formErrors: [message], hideFields: ["password"] }), init);
    if (error instanceof RateLimited) {
      return refuse("Too many failed logins. Wait a few minutes and try again.", {
        status: 429,
        headers: { "Retry-After": String(error.retryAfterSeconds) },
      });
    }
    if (error instanceof PasskeyRequiredError) return refuse(error.message, { status: 401 });
    if (error instanceof SsoRequiredError) return refuse(error.message, { status: 403 });
    if (error instanceof InvalidCredentialsError || error instanceof z.ZodError) {
      return refuse("Invalid email or password.", { status: 401 });
    }
    throw error;
  }
}

export default function LoginPage() {
  const { brand, redirectTo, sso } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const codeStep = actionData && "step" in actionData ? (actionData as CodeStepData) : null;
  const [form, fields] = useForm({
    id: "login",
    lastResult: codeStep ? undefined : (actionData as SubmissionResult<string[]> | undefined),
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LoginFormSchema }),
  });
  const refusal = form.errors?.[0];
  const emailError = fields.email.errors?.[0];
  const passwordError = fields.password.errors?.[0];
  const [searchParams] = useSearchParams();
  // formAction is set only while a submission is under way.
  const busy = useNavigation().formAction === "/login";
  // The browser's zone, the dashboard's default until the user picks one on /account.
  // Empty until hydrated (and without JavaScript): the dashboard then stays in UTC.
  const [timeZone, setTimeZone] = useState("");
  useEffect(() => setTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone ?? ""), []);
  if (codeStep) return <CodeStep step={codeStep} brand={brand} timeZone={timeZone} busy={busy} />;
  return (
    <main className="centered" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      <h1>Log in</h1>
      {searchParams.get("reset") === "1" ? <PasswordChanged /> : null}
      <Form method="post" action="/login" {...getFormProps(form)}>
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <input type="hidden" name="timeZone" value={timeZone} />
        <label htmlFor="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={fields.email.initialValue as string | undefined}
          aria-invalid={refusal || emailError ? true : undefined}
          aria-describedby={describedBy(emailError && "email-error", refusal && "login-error")}
        />
        {emailError ? (
          <p id="email-error" className="field-error">
            {emailError}
          </p>
        ) : null}
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          aria-invalid={passwordError ? true : undefined}
          aria-describedby={describedBy(passwordError && "password-error")}
        />
        {passwordError ? (
          <p id="password-error" className="field-error">
            {passwordError}
          </p>
        ) : null}
        {refusal ? (
          <p id="login-error" className="error" role="alert">
            {refusal}
          </p>
        ) : null}
        <p>
          <button type="submit" disabled={busy}>
            {busy ? "Logging in…" : "Log in"}
          </button>
        </p>
      </Form>
      <PasskeySignIn redirectTo={redirectTo} />
      {sso ? <SsoButton name={sso} redirectTo={redirectTo} /> : null}
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
    </main>
  );
}

function PasswordChanged() {
  return (
    <p className="notice" role="status">
      Your password was changed. Log in with the new one.
    </p>
  );
}

type CodeStepProps = { step: CodeStepData; brand: Parameters<typeof brandStyle>[0]; timeZone: string; busy: boolean };

/** The second step's form: the code (TOTP or recovery), posted with intent=code. */
function CodeStep({ step, brand, timeZone, busy }: CodeStepProps) {
  return (
    <main className="centered" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      <h1>Enter your code</h1>
      <Form method="post" action="/login">
        <input type="hidden" name="intent" value="code" />
        <input type="hidden" name="redirectTo" value={step.redirectTo} />
        <input type="hidden" name="timeZone" value={timeZone} />
        <label htmlFor="code">Code from your authenticator app, or a recovery code</label>
        <input
          id="code"
          name="code"
          autoComplete="one-time-code"
          autoCapitalize="off"
          spellCheck={false}
          maxLength={64}
          required
          autoFocus
          aria-invalid={step.error ? true : undefined}
          aria-describedby={describedBy(step.error && "code-error")}
        />
        {step.error ? (
          <p id="code-error" className="error" role="alert">
            {step.error}
          </p>
        ) : null}
        <p>
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Continue"}
          </button>
        </p>
      </Form>
      <p>
        <Link to="/login">Start again</Link>
      </p>
    </main>
  );
}

/** The ids of the messages an input is described by, if any. */
function describedBy(...ids: Array<string | false | undefined>): string | undefined {
  return ids.filter(Boolean).join(" ") || undefined;
}

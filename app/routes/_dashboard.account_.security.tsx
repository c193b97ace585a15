// /account/security: two-factor sign-in (docs/api/auth.md#two-factor, decision 061). Set up
// with a QR code drawn on the server and the secret in text, confirmed with a first code; the
// ten recovery codes shown once; new codes and turning off after the password is entered
// again. Plain forms: everything works without JavaScript, except adding a passkey (decision
// 068), which the browser does through /api/auth/passkeys; removing one is a plain form.
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { PasskeyList } from "~/components/staff/PasskeyList";
import { passwordIsRecent, requireRecentPassword } from "~/staff/account-password.server";
import { requireUserSession } from "~/staff/auth.server";
import { listPasskeys, removePasskey } from "~/staff/sign-in/passkeys.server";
import {
  disableTwoFactor,
  enableTwoFactor,
  hasTwoFactor,
  qrImageSource,
  regenerateRecoveryCodes,
  requirePasswordAgain,
  startTwoFactorSetup,
} from "~/staff/sign-in/two-factor.server";
import { DomainError } from "~/utils/domain-error";
import { domainErrorHeaders, statusOf } from "~/utils/http/api.server";
import { page, retryAfterOf } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Security · Lead Capture" }];
// Answers carry the secret or the recovery codes: never cached.
export const headers: HeadersFunction = ({ actionHeaders }) => ({
  "Cache-Control": "no-store",
  ...retryAfterOf(actionHeaders),
});

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const session = await requireUserSession(request);
  const required = new URL(request.url).searchParams.get("required") === "1";
  const [enabled, passkeys] = await Promise.all([hasTwoFactor(session.user.id), listPasskeys(session.user.id)]);
  return { enabled, passkeys, needsPassword: !passwordIsRecent(session), required };
});

type Answer = {
  setup?: { secret: string; qr: string };
  recoveryCodes?: string[];
  done?: string;
  error?: string;
};

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const session = await requireUserSession(request);
  const { user } = session;
  const ip = clientIp(context);
  const form = await request.formData();
  const password = form.get("password");
  try {
    switch (form.get("intent")) {
      case "setup": {
        await requireRecentPassword(session, password || undefined);
        const { secret, qrSvg } = await startTwoFactorSetup(user);
        return data<Answer>({ setup: { secret, qr: qrImageSource(qrSvg) } });
      }
      case "enable":
        return data<Answer>({ recoveryCodes: await enableTwoFactor(user, String(form.get("code") ?? ""), ip) });
      case "regenerate":
        await requirePasswordAgain(session, password);
        return data<Answer>({ recoveryCodes: await regenerateRecoveryCodes(user, ip) });
      case "disable":
        await requirePasswordAgain(session, password);
        await disableTwoFactor(user, ip);
        return data<Answer>({ done: "Two-factor sign-in is off." });
      case "remove-passkey":
        await requireRecentPassword(session, password || undefined);
        await removePasskey(user, String(form.get("passkeyId") ?? ""), ip);
        return data<Answer>({ done: "Passkey removed." });
      default:
        throw new Response("Unknown action.", { status: 400 });
    }
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const error = thrown.details[0]?.message ?? thrown.message;
    return data<Answer>({ error }, { status: statusOf(thrown), headers: domainErrorHeaders(thrown) });
  }
});

export default function SecurityPage() {
  const { enabled, passkeys, needsPassword, required } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  return (
    <>
      <h1>Security</h1>
      {required && !enabled && passkeys.length === 0 ? (
        <p className="notice" role="status">
          Your team requires two-factor sign-in: set it up, or add a passkey, to continue.
        </p>
      ) : null}
      <ActionNotice done={answer?.done ?? null} error={answer?.error} />
      {answer?.recoveryCodes ? <RecoveryCodes codes={answer.recoveryCodes} /> : null}
      {answer?.setup ? <ConfirmSetup setup={answer.setup} /> : null}
      <h2>Two-factor sign-in</h2>
      {enabled ? (
        <>
          <p>On: signing in asks for a code from your authenticator app after the password.</p>
          <PasswordForm intent="regenerate" label="Make new recovery codes" />
          <PasswordForm intent="disable" label="Turn two-factor off" />
        </>
      ) : (
        <>
          <p>Off. Turn it on to ask for a code from an authenticator app after your password.</p>
          {answer?.setup ? null : (
            <Form method="post">
              <input type="hidden" name="intent" value="setup" />
              {needsPassword ? <PasswordField id="setup-password" /> : null}
              <button type="submit">Set up two-factor</button>
            </Form>
          )}
        </>
      )}
      <PasskeyList passkeys={passkeys} needsPassword={needsPassword} />
    </>
  );
}

function ConfirmSetup({ setup }: { setup: { secret: string; qr: string } }) {
  return (
    <section aria-label="Set up two-factor">
      <p>Scan this code with your authenticator app, or type the secret into it.</p>
      <img src={setup.qr} alt="QR code of your two-factor secret" width={200} height={200} />
      <p>
        Secret: <code>{setup.secret}</code>
      </p>
      <Form method="post">
        <input type="hidden" name="intent" value="enable" />
        <label htmlFor="code">Code from the app</label>
        <input id="code" name="code" autoComplete="one-time-code" inputMode="numeric" maxLength={6} required />
        <button type="submit">Turn on</button>
      </Form>
    </section>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <section className="notice" role="status" aria-label="Recovery codes">
      <p>
        Two-factor is on. Keep these recovery codes somewhere safe: each signs in once without the app, and they are not
        shown again.
      </p>
      <ul>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}

function PasswordForm({ intent, label }: { intent: string; label: string }) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <PasswordField id={`${intent}-password`} />
      <button type="submit">{label}</button>
    </Form>
  );
}

function PasswordField({ id }: { id: string }) {
  return (
    <>
      <label htmlFor={id}>Your password</label>
      <input id={id} name="password" type="password" autoComplete="current-password" required />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

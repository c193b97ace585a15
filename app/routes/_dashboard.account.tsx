import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { LocalTime, useTimeZone } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { changeOwnPassword } from "~/staff/account-password.server";
import { ChangePasswordSchema } from "~/staff/account-schemas";
import { requireUserSession } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { listSessionsShown, revokeUserSessions } from "~/staff/session.server";
import { TIME_ZONES } from "~/staff/time-zone.server";
import { setTimeZone } from "~/staff/user.server";
import { DomainError, RateLimited } from "~/utils/domain-error";
import { page, retryAfterOf } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Your account · Lead Capture" }];
// A refusal for too many wrong passwords says when to try again.
export const headers: HeadersFunction = ({ actionHeaders }) => retryAfterOf(actionHeaders);

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const { user, idHash } = await requireUserSession(request);
  return { user, timeZones: TIME_ZONES, sessions: await listSessionsShown(user.id, idHash) };
});

type PasswordFieldName = "currentPassword" | "newPassword" | "confirmPassword";
/** Passwords are never sent back into the page, not even after a refusal. */
const HIDDEN = ["currentPassword", "newPassword", "confirmPassword"];

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const session = await requireUserSession(request);
  const { user, idHash } = session;
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "logout-others") {
    const ended = await revokeUserSessions(user.id, idHash);
    return redirect(`/account?ended=${ended}`);
  }
  if (intent === "time-zone") {
    try {
      await setTimeZone(user.id, { timeZone: form.get("timeZone") ?? undefined });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return data({ timeZoneError: error.details[0]?.message ?? error.message }, { status: 422 });
    }
    return redirect("/account?zone=1");
  }
  if (intent !== "change-password") throw new Response("Unknown action.", { status: 400 });
  // The schema the browser already checked with (Conform): the server checks again.
  const submission = parseWithZod(form, { schema: ChangePasswordSchema });
  if (submission.status !== "success") {
    return data(submission.reply({ hideFields: HIDDEN }), { status: 422 });
  }
  const refuse = (message: string, init: ResponseInit) =>
    data(submission.reply({ fieldErrors: { currentPassword: [message] }, hideFields: HIDDEN }), init);
  try {
    if (!(await changeOwnPassword(session, submission.value, clientIp(context)))) {
      return refuse("That is not your current password.", { status: 422 });
    }
  } catch (error) {
    if (!(error instanceof RateLimited)) throw error;
    const minutes = Math.ceil(error.retryAfterSeconds / 60);
    return refuse(`Too many wrong passwords. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
      status: 429,
      headers: { "Retry-After": String(error.retryAfterSeconds) },
    });
  }
  // Every session and API token ended with the old password; this device carries on in a new session.
  const cookie = await commitUserSession(user.id, request, clientIp(context));
  return redirect("/account?changed=1", { headers: { "Set-Cookie": cookie } });
});

function PasswordField({
  name,
  label,
  error,
  autoComplete,
}: {
  name: PasswordFieldName;
  label: string;
  error?: string;
  autoComplete: string;
}) {
  const errorId = `${name}-error`;
  return (
    <>
      <label htmlFor={name}>{label}</label>
      <input
        id={name}
        name={name}
        type="password"
        required
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      {error ? (
        <p id={errorId} className="field-error">
          {error}
        </p>
      ) : null}
    </>
  );
}

/** The password form, validated in the browser with the schema the server uses. */
function ChangePasswordForm({ busy }: { busy: boolean }) {
  const answer = useActionData<typeof action>();
  const lastResult = answer && !("timeZoneError" in answer) ? (answer as SubmissionResult<string[]>) : undefined;
  // Validated in the browser with the server's schema as soon as a field is left; without
  // JavaScript the form posts and the server's answer shows the same messages.
  const [form, fields] = useForm({
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ChangePasswordSchema }),
  });
  const errorOf = (name: PasswordFieldName) => fields[name].errors?.[0];
  return (
    <>
      <h2>Change your password</h2>
      <p className="muted" id="change-password-note">
        Changing it logs out every other session and revokes all your API tokens: make new ones afterwards.
      </p>
      <Form method="post" {...getFormProps(form)} noValidate aria-describedby="change-password-note">
        <input type="hidden" name="intent" value="change-password" />
        <PasswordField
          name="currentPassword"
          label="Current password"
          autoComplete="current-password"
          error={errorOf("currentPassword")}
        />
        <PasswordField
          name="newPassword"
          label="New password (12 characters or more)"
          autoComplete="new-password"
          error={errorOf("newPassword")}
        />
        <PasswordField
          name="confirmPassword"
          label="New password again"
          autoComplete="new-password"
          error={errorOf("confirmPassword")}
        />
        <p>
          <button type="submit" disabled={busy}>
            {busy ? "Saving…" : "Change password"}
          </button>
        </p>
      </Form>
    </>
  );
}

/** The zone every dashboard time is shown in (components/LocalTime). */
function TimeZoneForm({ current, choices, busy }: { current: string; choices: readonly string[]; busy: boolean }) {
  const answer = useActionData<typeof action>();
  const error = answer && "timeZoneError" in answer ? answer.timeZoneError : undefined;
  return (
    <>
      <h2>Time zone</h2>
      <Form method="post">
        <input type="hidden" name="intent" value="time-zone" />
        <label htmlFor="timeZone">Show times in</label>
        <select
          id="timeZone"
          name="timeZone"
          defaultValue={current}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "timeZone-error" : undefined}
        >
          {choices.map((zone) => (
            <option key={zone} value={zone}>
              {zone.replaceAll("_", " ")}
            </option>
          ))}
        </select>
        {error ? (
          <p id="timeZone-error" className="field-error">
            {error}
          </p>
        ) : null}
        <p>
          <button type="submit" disabled={busy}>
            Save time zone
          </button>
        </p>
      </Form>
    </>
  );
}

export default function AccountPage() {
  const { user, sessions, timeZones } = useLoaderData<typeof loader>();
  const timeZone = useTimeZone();
  const [searchParams] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" && navigation.formAction === "/account";
  const ended = searchParams.get("ended");
  const others = sessions.filter((session) => !session.current).length;
  return (
    <>
      <h1>Your account</h1>
      <p>
        Logged in as {user.email} ({user.role}). <Link to="/account/tokens">API tokens</Link>
      </p>
      {searchParams.get("changed") ? (
        <p role="status">
          Your password was changed. Every other session has been logged out and your API tokens have been revoked.
        </p>
      ) : null}
      {searchParams.get("zone") ? <p role="status">{`Times are now shown in ${timeZone}.`}</p> : null}
      {ended !== null ? (
        <p role="status">
          {ended === "1" ? "1 other session was logged out." : `${ended} other sessions were logged out.`}
        </p>
      ) : null}

      <h2>Where you are logged in</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Browser</th>
            <th scope="col">Logged in</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((session) => (
            <tr key={session.key}>
              <td data-label="Browser">
                <span title={session.userAgent || undefined}>{session.device}</span>
                {session.current ? <strong> (this device)</strong> : null}
              </td>
              <td data-label="Logged in">
                <LocalTime iso={session.createdAt} />
              </td>
              <td data-label="Last seen">{session.current ? "Now" : <LocalTime iso={session.lastSeenAt} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Form method="post">
        <input type="hidden" name="intent" value="logout-others" />
        <button type="submit" disabled={busy || others === 0}>
          Log out everywhere else
        </button>
      </Form>

      <TimeZoneForm current={timeZone} choices={timeZones} busy={busy} />
      <ChangePasswordForm busy={busy} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

// /account/tokens: your personal API tokens: a new one (shown once, here, never in a URL or
// the session), the list with scopes and last use, and revoking (plain forms: no JavaScript
// needed; the new token's is validated in the browser with the server's fields too, Conform).
// docs/api/tokens.md.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { NewTokenForm, TokensTable } from "~/components/staff/TokenForms";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { createOwnApiToken, passwordIsRecent } from "~/staff/account-password.server";
import { listApiTokens, revokeApiToken } from "~/staff/api-tokens.server";
import { requireUserSession } from "~/staff/auth.server";
import { grantableScopes } from "~/staff/policy";
import { NewTokenFormSchema } from "~/staff/staff-schemas";
import { DomainError } from "~/utils/domain-error";
import { domainErrorHeaders, statusOf } from "~/utils/http/api.server";
import { page, retryAfterOf } from "~/utils/http/page.server";
import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "API tokens · Lead Capture" }];
// The answer to a creation carries the token: no cache, no back-button copy of it. A refusal
// for too many wrong passwords says when to try again.
export const headers: HeadersFunction = ({ actionHeaders }) => ({
  "Cache-Control": "no-store",
  ...retryAfterOf(actionHeaders),
});

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const session = await requireUserSession(request);
  const { user } = session;
  return {
    tokens: await listApiTokens(user.id),
    scopes: grantableScopes(user),
    // As GitHub's sudo mode: the form asks for the password when it was last entered 10+ minutes ago.
    needsPassword: !passwordIsRecent(session),
  };
});

type Answer = {
  reply?: SubmissionResult<string[]>;
  created?: { name: string; token: string };
  revoked?: boolean;
  error?: string;
};

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const session = await requireUserSession(request);
  const audit = auditor(context, session.user);
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "revoke") {
    return answered(async () => {
      await revokeApiToken(session.user, String(form.get("id") ?? ""), audit);
      return { revoked: true };
    });
  }
  if (intent !== "create") throw new Response("Unknown action.", { status: 400 });
  // Conform reads the form for the answer only: the password is checked (or asked for)
  // before the fields, by the same operation the JSON API calls. The password never comes back.
  const submission = parseWithZod(form, { schema: NewTokenFormSchema });
  const expires = String(form.get("expiresOn") ?? "");
  const input = {
    name: String(form.get("name") ?? ""),
    scopes: form.getAll("scopes").map(String),
    // The end of the chosen day, in UTC.
    ...(expires && { expiresAt: `${expires}T23:59:59Z` }),
  };
  return answered(
    async () => {
      const created = await createOwnApiToken(session, form.get("password"), input, audit);
      return { reply: submission.reply({ resetForm: true }), created: { name: created.name, token: created.token } };
    },
    (fieldErrors) => submission.reply({ fieldErrors, hideFields: ["password"] }),
  );
});

/** The answer of a change, or its refusal: next to the fields it names, else in the notice. */
async function answered(
  change: () => Promise<Answer>,
  replyWith?: (fieldErrors: Record<string, string[]>) => SubmissionResult<string[]>,
) {
  try {
    return data<Answer>(await change());
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    // The form asks for a day; the operation names the time it makes of it.
    const details = thrown.details.map((detail) =>
      detail.path === "expiresAt" ? { ...detail, path: "expiresOn" } : detail,
    );
    const reply = replyWith?.(fieldErrorsFrom(details));
    const error = reply && thrown.code === "validation_failed" ? undefined : thrown.message;
    return data<Answer>({ reply, error }, { status: statusOf(thrown), headers: domainErrorHeaders(thrown) });
  }
}

export default function TokensPage() {
  const { tokens, scopes, needsPassword } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  return (
    <>
      <h1>API tokens</h1>
      <p className="muted">
        A token lets a script call the API as you (<code>Authorization: Bearer lc_…</code>), within its scopes and your
        role.
      </p>
      {answer?.created ? (
        <section className="notice" role="status" aria-label="New token">
          <p>
            Token <strong>{answer.created.name}</strong> created. Copy it now: it is not shown again.
          </p>
          <p>
            <code>{answer.created.token}</code>
          </p>
        </section>
      ) : null}
      <ActionNotice done={answer?.revoked ? "The token was revoked." : null} error={answer?.error} />
      <NewTokenForm scopes={scopes} needsPassword={needsPassword} lastResult={answer?.reply} />
      <h2>Your tokens</h2>
      {tokens.length === 0 ? <p className="muted">No tokens yet.</p> : <TokensTable tokens={tokens} />}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

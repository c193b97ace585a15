// /account/tokens: your personal API tokens: a new one (shown once, here, never in a URL or
// the session), the list with scopes and last use, and revoking (plain forms: no JavaScript
// needed). docs/api/tokens.md.
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { createOwnApiToken, passwordIsRecent } from "~/staff/account-password.server";
import { listApiTokens, revokeApiToken } from "~/staff/api-tokens.server";
import { requireUserSession } from "~/staff/auth.server";
import { grantableScopes } from "~/staff/policy";
import { domainErrorHeaders, statusOf } from "~/utils/api.server";
import { DomainError } from "~/utils/domain-error";
import { page, retryAfterOf } from "~/utils/page.server";
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

type Answer = { created?: { name: string; token: string }; revoked?: boolean; error?: string };

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const session = await requireUserSession(request);
  const { user } = session;
  const audit = auditor(context, user);
  const form = await request.formData();
  const intent = form.get("intent");
  try {
    if (intent === "revoke") {
      const id = String(form.get("id") ?? "");
      await revokeApiToken(user, id, audit);
      return data<Answer>({ revoked: true });
    }
    if (intent !== "create") throw new Response("Unknown action.", { status: 400 });
    const expires = String(form.get("expiresOn") ?? "");
    const input = {
      name: String(form.get("name") ?? ""),
      scopes: form.getAll("scopes").map(String),
      // The end of the chosen day, in UTC.
      ...(expires && { expiresAt: `${expires}T23:59:59Z` }),
    };
    const created = await createOwnApiToken(session, form.get("password"), input, audit);
    return data<Answer>({ created: { name: created.name, token: created.token } });
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const message = thrown.details.map((detail) => `${detail.path}: ${detail.message}`).join(" ") || thrown.message;
    return data<Answer>({ error: message }, { status: statusOf(thrown), headers: domainErrorHeaders(thrown) });
  }
});

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
      <NewTokenForm scopes={scopes} needsPassword={needsPassword} />
      <h2>Your tokens</h2>
      {tokens.length === 0 ? <p className="muted">No tokens yet.</p> : <TokensTable tokens={tokens} />}
    </>
  );
}

function NewTokenForm({ scopes, needsPassword }: { scopes: string[]; needsPassword: boolean }) {
  return (
    <section className="card" aria-labelledby="new-token-heading">
      <h2 id="new-token-heading">New token</h2>
      <Form method="post" aria-label="New token">
        <input type="hidden" name="intent" value="create" />
        <label htmlFor="token-name">Name</label>
        <input id="token-name" name="name" required maxLength={100} />
        <fieldset>
          <legend>Scopes</legend>
          {scopes.map((scope) => (
            <label key={scope}>
              <input type="checkbox" name="scopes" value={scope} /> {scope}
            </label>
          ))}
        </fieldset>
        <label htmlFor="token-expires">Expires on (optional)</label>
        <input id="token-expires" name="expiresOn" type="date" />
        {needsPassword ? (
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
              aria-describedby="token-password-hint"
            />
          </>
        ) : null}
        <p>
          <button type="submit">Create the token</button>
        </p>
      </Form>
    </section>
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

function TokensTable({ tokens }: { tokens: Token[] }) {
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

export function ErrorBoundary() {
  return <RouteError />;
}

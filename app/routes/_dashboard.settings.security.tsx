// /settings/security: owners require two-factor for the team, and say whether API tokens of
// users still without it keep working meanwhile (decision 061), and, with single sign-on
// configured, require it for everybody but owners (decision 062). A plain form.
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { authorize } from "~/staff/auth.server";
import { getSecurityPolicy, updateSecurityPolicy } from "~/staff/sign-in/security-policy.server";
import { env } from "~/utils/env.server";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Sign-in rules · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "security.manage");
  return { ...(await getSecurityPolicy()), sso: env.OIDC?.name ?? null };
});

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const user = await authorize(request, "security.manage");
  const form = await request.formData();
  await updateSecurityPolicy(
    user,
    {
      requireTwoFactor: form.get("requireTwoFactor") === "on",
      tokensWithoutTwoFactor: form.get("tokensWithoutTwoFactor") === "on",
      // Not shown without single sign-on: the setting is left as it is.
      ...(env.OIDC ? { requireSso: form.get("requireSso") === "on" } : {}),
    },
    clientIp(context),
  );
  return data({ saved: true });
});

export default function SecuritySettingsPage() {
  const policy = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <>
      <h1>Sign-in rules</h1>
      <ActionNotice done={answer?.saved ? "Saved." : null} />
      <Form method="post">
        <p>
          <input
            type="checkbox"
            id="requireTwoFactor"
            name="requireTwoFactor"
            defaultChecked={policy.requireTwoFactor}
          />
          <label htmlFor="requireTwoFactor">Require two-factor sign-in for everybody</label>
        </p>
        <p className="muted">Anybody without it is sent to set it up and can do nothing else until they have.</p>
        <p>
          <input
            type="checkbox"
            id="tokensWithoutTwoFactor"
            name="tokensWithoutTwoFactor"
            defaultChecked={policy.tokensWithoutTwoFactor}
          />
          <label htmlFor="tokensWithoutTwoFactor">Let API tokens of people without two-factor keep working</label>
        </p>
        {policy.sso ? (
          <>
            <p>
              <input type="checkbox" id="requireSso" name="requireSso" defaultChecked={policy.requireSso} />
              <label htmlFor="requireSso">Require sign-in with {policy.sso} for everybody but owners</label>
            </p>
            <p className="muted">
              Others can then no longer sign in with a password. Owners still can, so that nobody is locked out while
              the provider is down.
            </p>
          </>
        ) : null}
        <button type="submit">Save</button>
      </Form>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

// GET /auth/oidc/callback: where the provider sends the browser back (decision 062). A verified
// email of an enabled staff user (or of an allowed domain, which makes an agent) gets a session
// as a password login does; anything else gets a page with the reason. The flow's cookie is
// cleared either way: each sign-in answer is used once.
import { data, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { SsoRefusal } from "~/components/staff/SsoRefusal";
import { commitUserSession } from "~/staff/session-cookie.server";
import { endSsoFlow, SsoRefusal as Refusal } from "~/staff/sign-in/oidc-flow.server";
import { signInWithSso } from "~/staff/sign-in/sso-sign-in.server";
import { RateLimited } from "~/utils/domain-error";
import { retryAfterOf } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Single sign-on · Lead Capture" }];

export const headers: HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": "no-store",
  ...retryAfterOf(loaderHeaders),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ip = clientIp(context);
  const headers = new Headers({ "Set-Cookie": await endSsoFlow(), "Cache-Control": "no-store" });
  try {
    const { user, redirectTo } = await signInWithSso(request, ip);
    headers.append("Set-Cookie", await commitUserSession(user.id, request, ip));
    return redirect(redirectTo, { headers });
  } catch (error) {
    if (error instanceof RateLimited) {
      headers.set("Retry-After", String(error.retryAfterSeconds));
      return data({ message: error.message }, { status: 429, headers });
    }
    if (!(error instanceof Refusal)) throw error;
    return data({ message: error.message }, { status: error.status, headers });
  }
}

export default function FinishSingleSignOn() {
  const { message } = useLoaderData<typeof loader>();
  return <SsoRefusal message={message} />;
}

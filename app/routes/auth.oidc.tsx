// GET /auth/oidc: starts single sign-on (decision 062, docs/api/auth.md#single-sign-on). Sends
// the browser to the provider with PKCE (S256), state and nonce, remembered in a signed
// cookie; a provider that cannot be reached gives a page saying so.
import { data, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { SsoRefusal } from "~/components/staff/SsoRefusal";
import { getOptionalUser, safeRedirect } from "~/staff/auth.server";
import { SsoRefusal as Refusal, startSsoFlow } from "~/staff/sign-in/oidc-flow.server";
import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Single sign-on · Lead Capture" }];

export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

export async function loader({ request }: LoaderFunctionArgs) {
  const redirectTo = safeRedirect(new URL(request.url).searchParams.get("redirectTo"), "/");
  if (await getOptionalUser(request)) throw redirect(redirectTo);
  try {
    const { url, cookie } = await startSsoFlow(redirectTo);
    return redirect(url, { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } });
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return data({ message: error.message }, { status: error.status, headers: { "Cache-Control": "no-store" } });
  }
}

export default function StartSingleSignOn() {
  const { message } = useLoaderData<typeof loader>();
  return <SsoRefusal message={message} />;
}

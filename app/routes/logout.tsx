import { redirect } from "@remix-run/node";
import { assertSameOrigin } from "~/staff/auth.server";
import { destroySessionCookie } from "~/staff/session-cookie.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  assertSameOrigin(request);
  return redirect("/login", { headers: { "Set-Cookie": await destroySessionCookie(request) } });
}

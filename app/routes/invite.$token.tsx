// /invite/:token: an invited staff user sets their name and password (a plain form), and is
// logged in. A used or expired link answers 410 (docs/api/staff.md).
import { data, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { assertSameOrigin } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { acceptInvitation, readInvitation } from "~/staff/staff.server";
import { DomainError } from "~/utils/domain-error";
import { page } from "~/utils/page.server";
import { clientIp } from "~/utils/request.server";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [
  { title: "Join the staff · Lead Capture" },
  { name: "referrer", content: "same-origin" },
];
// The token is in the address: keep the page out of caches.
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

export const loader = page(async function loader({ params }: LoaderFunctionArgs) {
  const { email, name } = await readInvitation(params.token!);
  return { email, name };
});

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  assertSameOrigin(request);
  const form = await request.formData();
  try {
    const user = await acceptInvitation(
      params.token!,
      { name: String(form.get("name") ?? ""), password: String(form.get("password") ?? "") },
      clientIp(context),
    );
    const cookie = await commitUserSession(user.id, request, clientIp(context));
    return redirect("/", { headers: { "Set-Cookie": cookie } });
  } catch (thrown) {
    if (thrown instanceof DomainError && thrown.code === "validation_failed") {
      return data({ errors: thrown.details, name: String(form.get("name") ?? "") }, { status: 422 });
    }
    throw thrown;
  }
});

export default function InvitationPage() {
  const { email, name } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const errorOf = (path: string) => answer?.errors.find((detail) => detail.path === path)?.message;
  return (
    <main className="centered">
      <h1>Join the staff</h1>
      <p>
        You were invited as <strong>{email}</strong>. Choose your name and a password.
      </p>
      <Form method="post">
        <label htmlFor="name">Name</label>
        <input
          id="name"
          name="name"
          autoComplete="name"
          required
          defaultValue={answer?.name ?? name ?? ""}
          aria-invalid={errorOf("name") ? true : undefined}
          aria-describedby={errorOf("name") ? "name-error" : undefined}
        />
        {errorOf("name") ? (
          <p id="name-error" className="error">
            {errorOf("name")}
          </p>
        ) : null}
        <label htmlFor="password">Password (at least 12 characters)</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={12}
          aria-invalid={errorOf("password") ? true : undefined}
          aria-describedby={errorOf("password") ? "password-error" : undefined}
        />
        {errorOf("password") ? (
          <p id="password-error" className="error">
            {errorOf("password")}
          </p>
        ) : null}
        <p>
          <button type="submit">Join</button>
        </p>
      </Form>
    </main>
  );
}

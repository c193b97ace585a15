// /invite/:token: an invited staff user sets their name and password (a plain form, validated
// in the browser with the server's schema too: Conform), and is logged in. A used or expired
// link answers 410 (docs/api/staff.md).
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { AcceptInvitationSchema } from "~/staff/account-schemas";
import { assertSameOrigin } from "~/staff/auth.server";
import { commitUserSession } from "~/staff/session-cookie.server";
import { acceptInvitation, readInvitation } from "~/staff/staff.server";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
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
  const submission = parseWithZod(await request.formData(), { schema: AcceptInvitationSchema });
  // The name comes back into the page after a refusal; the password never does.
  if (submission.status !== "success") {
    return data<SubmissionResult<string[]>>(submission.reply({ hideFields: ["password"] }), { status: 422 });
  }
  const user = await acceptInvitation(params.token!, submission.value, clientIp(context));
  const cookie = await commitUserSession(user.id, request, clientIp(context));
  return redirect("/", { headers: { "Set-Cookie": cookie } });
});

export default function InvitationPage() {
  const { email, name } = useLoaderData<typeof loader>();
  const [form, fields] = useForm({
    id: "invitation",
    lastResult: useActionData<typeof action>() as SubmissionResult<string[]> | undefined,
    defaultValue: { name: name ?? "" },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AcceptInvitationSchema }),
  });
  const errorOf = (field: "name" | "password") => fields[field].errors?.[0];
  const described = (field: "name" | "password") =>
    errorOf(field) ? { "aria-invalid": true as const, "aria-describedby": `${field}-error` } : {};
  return (
    <main className="centered">
      <h1>Join the staff</h1>
      <p>
        You were invited as <strong>{email}</strong>. Choose your name and a password.
      </p>
      <Form method="post" {...getFormProps(form)}>
        <label htmlFor="name">Name</label>
        <input
          id="name"
          name="name"
          autoComplete="name"
          required
          defaultValue={(fields.name.initialValue as string | undefined) ?? ""}
          {...described("name")}
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
          {...described("password")}
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

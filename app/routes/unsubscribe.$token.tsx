// /unsubscribe/:token: the link in every autoresponse (decision 066). GET only shows a
// button, so a scanner following links unsubscribes nobody; the POST (the button, or a mail
// provider's RFC 8058 one-click POST) records the address in the suppression list.
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { addressOfToken, suppressAddress } from "~/notifications/autoresponse.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

function addressOrFail(token: string | undefined): string {
  const email = addressOfToken(token ?? "");
  if (!email) throw new Response("This unsubscribe link is not valid.", { status: 404 });
  return email;
}

export const loader = page(async function loader({ params }: LoaderFunctionArgs) {
  return { email: addressOrFail(params.token) };
});

export const action = page(async function action({ params }: ActionFunctionArgs) {
  const email = addressOrFail(params.token);
  await suppressAddress(email);
  return { email, done: true };
});

export const meta: MetaFunction = () => [{ title: "Unsubscribe" }, { name: "robots", content: "noindex" }];

export default function Unsubscribe() {
  const { email } = useLoaderData<typeof loader>();
  const done = useActionData<typeof action>()?.done === true;
  return (
    <main className="centered">
      <h1>Unsubscribe</h1>
      {done ? (
        <p role="status">{email} will get no more automatic replies from our forms.</p>
      ) : (
        <Form method="post" reloadDocument>
          <p>Stop automatic replies from our forms to {email}?</p>
          <button type="submit">Unsubscribe</button>
        </Form>
      )}
    </main>
  );
}

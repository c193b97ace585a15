// /confirm/:token: the link of a double opt-in email (decision 067). GET only shows a page
// with a button, so a mail scanner that follows the link confirms nothing; the button's POST
// confirms the lead (app/capture/lead-confirmation.server.ts). Works without JavaScript.
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { getBrand } from "~/brand/brand.server";
import { confirmationState, confirmLead, type ConfirmationState } from "~/capture/lead-confirmation.server";
import { BrandHeader, brandStyle } from "~/components/BrandHeader";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

const SAID: Record<ConfirmationState, { title: string; text: string }> = {
  pending: { title: "Confirm your email address", text: "Press the button to confirm that this address is yours." },
  confirmed: { title: "Your address is confirmed", text: "Thank you. You can close this page." },
  expired: {
    title: "This link has expired",
    text: "Confirmation links work for 7 days. Send the form again to get a new one.",
  },
  unknown: { title: "This link does not work", text: "It may have been cut short by your email program." },
};

export const loader = page(async function loader({ params }: LoaderFunctionArgs) {
  const state = await confirmationState(params.token ?? "");
  return { brand: await getBrand(), state };
});

export const action = page(async function action({ params }: ActionFunctionArgs) {
  return { state: await confirmLead(params.token ?? "") };
});

export const meta: MetaFunction = () => [
  { title: "Confirm your email address" },
  { name: "robots", content: "noindex" },
];

export default function ConfirmAddress() {
  const { brand, state: shown } = useLoaderData<typeof loader>();
  const done = useActionData<typeof action>();
  const state = done?.state ?? shown;
  return (
    <main className="centered hosted-form" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      <h1 role={done ? "status" : undefined}>{SAID[state].title}</h1>
      <p>{SAID[state].text}</p>
      {state === "pending" ? (
        <Form method="post">
          <button type="submit">Confirm</button>
        </Form>
      ) : null}
    </main>
  );
}

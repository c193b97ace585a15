// /f/:formId/thanks: where a plain form post lands after a lead is stored, when the
// form has no redirectUrl of its own. Shows the form's success message.
import { useLoaderData } from "@remix-run/react";
import { getPublicForm } from "~/models/public-form.server";
import { page } from "~/utils/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const loader = page(async function loader({ params }: LoaderFunctionArgs) {
  const form = await getPublicForm(params.formId ?? "");
  if (!form) throw new Response("This form does not exist.", { status: 404 });
  return { name: form.name, successMessage: form.settings.successMessage };
});

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Thank you · ${data.name}` : "Form not found" },
  { name: "robots", content: "noindex" },
];

export default function ThankYou() {
  const { name, successMessage } = useLoaderData<typeof loader>();
  return (
    <main className="centered hosted-form">
      {/* The form's own success message says the thanks (no second "Thank you" above it). */}
      <p className="muted">{name}</p>
      <h1 role="status">{successMessage}</h1>
    </main>
  );
}

// The same "no such form" page as the form itself.
export { ErrorBoundary } from "./f.$formId";

// /f/:formId/thanks: where a plain form post lands after a lead is stored, when the
// form has no redirectUrl of its own. Shows the company's brand, the form's thank-you
// message (its success message when none is set) and its link back to the site.
import { useLoaderData } from "@remix-run/react";
import { getBrand } from "~/brand/brand.server";
import { getPublicForm } from "~/capture/public-form.server";
import { BrandHeader, brandStyle } from "~/components/BrandHeader";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const loader = page(async function loader({ params, request }: LoaderFunctionArgs) {
  const form = await getPublicForm(params.formId ?? "");
  if (!form) throw new Response("This form does not exist.", { status: 404 });
  const thankYou = form.settings.thankYou;
  const link = thankYou?.linkUrl ? { url: thankYou.linkUrl, text: thankYou.linkText ?? "Back to the site" } : null;
  return {
    brand: await getBrand(),
    name: form.name,
    message: thankYou?.message ?? form.settings.successMessage,
    link,
    confirming: Boolean(form.settings.doubleOptIn),
    // Set by the submit redirect only when an autoresponse was queued (decision 066).
    confirmation:
      Boolean(form.settings.autoresponder?.enabled) && new URL(request.url).searchParams.get("confirmation") === "1",
  };
});

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Thank you · ${data.name}` : "Form not found" },
  { name: "robots", content: "noindex" },
];

export default function ThankYou() {
  const { brand, name, message, link, confirming, confirmation } = useLoaderData<typeof loader>();
  return (
    <main className="centered hosted-form" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      {/* The form's own message says the thanks (no second "Thank you" above it). */}
      <p className="muted">{name}</p>
      <h1 role="status">{message}</h1>
      {confirming ? (
        <p>
          A confirmation email is on its way to you: open its link and press &ldquo;Confirm&rdquo; to finish. Nothing
          more is sent until you do.
        </p>
      ) : null}
      {confirmation && !confirming ? <p>A confirmation email is on its way to you.</p> : null}
      {link ? (
        <p>
          <a className="button" href={link.url}>
            {link.text}
          </a>
        </p>
      ) : null}
    </main>
  );
}

// The same "no such form" page as the form itself.
export { ErrorBoundary } from "./f.$formId";

import { redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { auditor } from "~/models/audit.server";
import type { LeadValue } from "~/models/form-schema";
import { deleteLead, getLead } from "~/models/lead.server";
import { authorize } from "~/utils/auth.server";
import { page } from "~/utils/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Lead from ${data.lead.formName} · Lead Capture` : "Lead · Lead Capture" },
];

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const lead = await getLead(params.id ?? "");
  if (!lead) throw new Response("There is no lead with this id; it may have been deleted.", { status: 404 });
  // Deleting takes two steps that both work without JavaScript: ?confirm=delete shows the question.
  const confirming = new URL(request.url).searchParams.get("confirm") === "delete";
  return { lead, confirming };
});

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await authorize(request, "leads.write");
  const form = await request.formData();
  if (form.get("intent") !== "delete") throw new Response("Unknown action.", { status: 400 });
  if (!(await deleteLead(params.id ?? ""))) {
    throw new Response("There is no lead with this id; it may have been deleted.", { status: 404 });
  }
  await auditor(context, user)("lead.delete", `lead:${params.id}`);
  return redirect("/leads?deleted=1");
});

function display(value: LeadValue | undefined): string {
  if (value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  return Array.isArray(value) ? value.join(", ") || "—" : String(value);
}

export default function LeadPage() {
  const { lead, confirming } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const deleting = navigation.state === "submitting" && navigation.formData?.get("intent") === "delete";
  const source: Array<[string, string | null]> = [
    ["utm_source", lead.utm.utm_source],
    ["utm_medium", lead.utm.utm_medium],
    ["utm_campaign", lead.utm.utm_campaign],
    ["utm_term", lead.utm.utm_term],
    ["utm_content", lead.utm.utm_content],
    ["Referrer", lead.referrerUrl],
    ["Landing page", lead.landingPageUrl],
    ["User agent", lead.userAgent],
  ];
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>
        Lead from {lead.formName} {lead.isSpam ? <span className="badge spam">spam</span> : null}
      </h1>
      <p className="muted">
        Submitted <time dateTime={lead.createdAt}>{lead.createdAt.replace("T", " ").replace(/\.\d+Z$/, "")} UTC</time>{" "}
        under version {lead.schemaVersion} of the form · <Link to={`/forms/${lead.formId}`}>Open the form</Link>
      </p>

      <section className="card" aria-labelledby="values-heading">
        <h2 id="values-heading">Values</h2>
        <table>
          <tbody>
            {lead.fields.map((field) => (
              <tr key={field.key}>
                <th scope="row">{field.label}</th>
                <td style={{ whiteSpace: "pre-wrap" }}>{display(lead.data[field.key])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section className="card" aria-labelledby="source-heading">
        <h2 id="source-heading">Source</h2>
        <table>
          <tbody>
            {source.map(([label, value]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{value ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {confirming ? (
        <section className="card error-panel" role="alertdialog" aria-labelledby="confirm-heading">
          <h2 id="confirm-heading">Delete this lead?</h2>
          <p>The lead and its values are removed for good; exports will no longer include it.</p>
          <Form method="post" className="actions">
            <button type="submit" name="intent" value="delete" className="danger" disabled={deleting}>
              {deleting ? "Deleting…" : "Yes, delete the lead"}
            </button>
            <Link to={`/leads/${lead.id}`}>Cancel</Link>
          </Form>
        </section>
      ) : (
        <p>
          <Link to={`/leads/${lead.id}?confirm=delete`} className="button secondary">
            Delete lead…
          </Link>
        </p>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no lead with this id; it may have been deleted." />;
}

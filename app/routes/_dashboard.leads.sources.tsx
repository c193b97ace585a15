// /leads/sources: a form's views, leads and conversion rate per source, campaign, referrer
// and day, with a chart of views and leads per day drawn on the server (no JavaScript).
import { data } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { SourceBreakdown } from "~/components/leads/SourceBreakdown";
import { SourceFunnel } from "~/components/leads/SourceFunnel";
import { SupportBySource } from "~/components/people/SupportBySource";
import { RouteError } from "~/components/RouteError";
import { getFunnel } from "~/forms/form-funnel.server";
import { SourceStatsQuerySchema, getSourceStats } from "~/forms/form-stats.server";
import { listFormChoices } from "~/leads/lead.server";
import { supportByFirstTouchSource } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { checkInput } from "~/utils/domain-error";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Where leads come from · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const url = new URL(request.url);
  const values = {
    formId: url.searchParams.get("formId") ?? "",
    from: url.searchParams.get("from") ?? "",
    to: url.searchParams.get("to") ?? "",
  };
  const forms = await listFormChoices();
  // Without a form chosen, show the newest one rather than an empty page.
  const formId = values.formId || forms[0]?.id;
  if (!formId) return { values, forms, stats: null, funnel: null, support: null, errors: [] };
  const parsed = checkInput(SourceStatsQuerySchema, { ...values, formId });
  if (!parsed.ok) {
    return data({ values, forms, stats: null, funnel: null, support: null, errors: parsed.details }, { status: 422 });
  }
  const [stats, funnel] = await Promise.all([
    getSourceStats(parsed.value),
    getFunnel({ ...parsed.value, groupBy: "utm_source" }),
  ]);
  // Beside views and leads, the support requests each first-touch source brought (decision 071).
  const support = await supportByFirstTouchSource(stats.formId, stats.from, stats.to);
  return { values: { ...values, formId, from: stats.from, to: stats.to }, forms, stats, funnel, support, errors: [] };
});

export default function SourcesPage() {
  const { values, forms, stats, funnel, support, errors } = useLoaderData<typeof loader>();
  const errorFor = (name: string) => errors.find((error) => error.path === name)?.message;
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>Where leads come from</h1>
      <Form method="get" action="/leads/sources" className="card" aria-label="Choose a form and a period">
        <div className="row">
          <div>
            <label htmlFor="sources-form">Form</label>
            <select
              id="sources-form"
              name="formId"
              defaultValue={values.formId}
              aria-invalid={errorFor("formId") ? true : undefined}
            >
              {forms.map((form) => (
                <option key={form.id} value={form.id}>
                  {form.name}
                </option>
              ))}
            </select>
            {errorFor("formId") ? <p className="field-error">{errorFor("formId")}</p> : null}
          </div>
          {(["from", "to"] as const).map((name) => (
            <div key={name}>
              <label htmlFor={`sources-${name}`}>{name === "from" ? "From" : "To"}</label>
              <input
                id={`sources-${name}`}
                name={name}
                type="date"
                defaultValue={values[name]}
                aria-invalid={errorFor(name) ? true : undefined}
              />
              {errorFor(name) ? <p className="field-error">{errorFor(name)}</p> : null}
            </div>
          ))}
          <div>
            <button type="submit">Show</button>
          </div>
        </div>
      </Form>

      {forms.length === 0 ? <p className="muted">There are no forms yet.</p> : null}
      {funnel ? <SourceFunnel steps={funnel.steps} rows={funnel.rows} /> : null}
      {stats ? <SourceBreakdown stats={stats} /> : null}
      {support ? <SupportBySource rows={support} /> : null}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no form with this id." />;
}

// /leads/partial: the partial leads (decision 060), newest first, optionally of one form: the
// answers of visitors who left a form with capturePartial after a step that held their email.
// Server-drawn, a page at a time with a Next link: works without JavaScript.
import { Form, Link, useLoaderData } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { TableScroll } from "~/components/TableScroll";
import { listFormChoices } from "~/leads/lead.server";
import { listPartialLeads } from "~/leads/partial-leads.server";
import { authorize } from "~/staff/auth.server";
import { decodeCursor } from "~/storage/keyset.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Partial leads · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const url = new URL(request.url);
  const formId = (url.searchParams.get("formId") ?? "").slice(0, 64);
  const rawCursor = url.searchParams.get("cursor") ?? "";
  // A cursor that is not ours starts from the newest, as the lead list does.
  const cursor = rawCursor && decodeCursor(rawCursor) ? rawCursor : undefined;
  const [forms, list] = await Promise.all([
    listFormChoices(),
    listPartialLeads({ formId: formId || undefined, cursor, limit: 50 }),
  ]);
  return { formId, forms, ...list };
});

export default function PartialLeadsPage() {
  const { formId, forms, leads: items, nextCursor } = useLoaderData<typeof loader>();
  const next = new URLSearchParams({ ...(formId ? { formId } : {}), ...(nextCursor ? { cursor: nextCursor } : {}) });
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>Partial leads</h1>
      <p className="muted">
        Visitors who gave their email on a form that keeps partial answers, and have not sent it yet. A partial becomes
        a lead when the visitor finishes the form, and is deleted after PARTIAL_LEAD_RETENTION_DAYS if they never do.
        Partials get no notification or webhook and are in no count or export.
      </p>
      <Form method="get" action="/leads/partial" className="card row" aria-label="Choose a form">
        <div>
          <label htmlFor="partial-form">Form</label>
          <select id="partial-form" name="formId" defaultValue={formId}>
            <option value="">Every form</option>
            {forms.map((form) => (
              <option key={form.id} value={form.id}>
                {form.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit">Show</button>
        </div>
      </Form>
      {items.length === 0 ? (
        <p className="muted">No partial leads.</p>
      ) : (
        <TableScroll label="Partial leads">
          <table aria-label="Partial leads">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Form</th>
                <th scope="col">Source</th>
                <th scope="col">Last saved</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  <th scope="row" style={{ fontWeight: "normal" }}>
                    {item.email}
                  </th>
                  <td data-label="Form">{item.formName}</td>
                  <td data-label="Source">{item.utm.utm_source ?? <span className="muted">(none)</span>}</td>
                  <td data-label="Last saved">
                    <LocalTime iso={item.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {nextCursor ? (
        <p>
          <Link to={`/leads/partial?${next}`}>Older partial leads →</Link>
        </p>
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

import { data } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import type { LeadValue } from "~/models/form-schema";
import { DEFAULT_PAGE_SIZE, filtersToSearchParams, parseLeadListQuery } from "~/models/lead-filters.server";
import { listFormChoices, listLeads, type LeadSummary } from "~/models/lead.server";
import { authorize } from "~/utils/auth.server";
import type { ErrorDetail } from "~/utils/domain-error";
import { page } from "~/utils/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Leads · Lead Capture" }];

const FILTER_NAMES = ["formId", "from", "to", "utm_source", "utm_medium", "utm_campaign", "q", "spam"] as const;

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const url = new URL(request.url);
  const values = Object.fromEntries(FILTER_NAMES.map((name) => [name, url.searchParams.get(name) ?? ""]));
  const parsed = parseLeadListQuery(url.searchParams);
  const forms = await listFormChoices();
  if (!parsed.ok) {
    return data(
      {
        values,
        errors: parsed.details,
        forms,
        leads: [] as LeadSummary[],
        nextCursor: null,
        filterQuery: "",
        isFirstPage: true,
        deleted: false,
      },
      { status: 422 },
    );
  }
  const { leads, nextCursor } = await listLeads(parsed.value);
  const filterQuery = filtersToSearchParams(parsed.value).toString();
  return {
    values,
    errors: [],
    forms,
    leads,
    nextCursor,
    // Page size travels with the pages, so "Next" shows the same number of rows.
    filterQuery:
      parsed.value.limit !== DEFAULT_PAGE_SIZE
        ? `${filterQuery}${filterQuery ? "&" : ""}limit=${parsed.value.limit}`
        : filterQuery,
    isFirstPage: !parsed.value.cursor,
    deleted: url.searchParams.get("deleted") === "1",
  };
});

function preview(value: LeadValue | undefined): string {
  if (value === undefined) return "";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

function summary(lead: LeadSummary): string {
  const text = Object.values(lead.data).map(preview).filter(Boolean).slice(0, 3).join(" · ");
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

export default function LeadsPage() {
  const { values, errors, forms, leads, nextCursor, filterQuery, isFirstPage, deleted } =
    useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const busy = navigation.state === "loading" && navigation.location?.pathname === "/leads";

  return (
    <>
      <div className="actions" style={{ justifyContent: "space-between" }}>
        <h1>Leads</h1>
        <Link to={`/leads/sources${values.formId ? `?formId=${encodeURIComponent(values.formId)}` : ""}`}>
          Where leads come from
        </Link>
      </div>
      {deleted ? (
        <p className="notice" role="status">
          The lead was deleted.
        </p>
      ) : null}

      <LeadFilters values={values} errors={errors} forms={forms} busy={busy} />
      <ExportLinks filterQuery={filterQuery} invalid={errors.length > 0} />

      {leads.length === 0 && errors.length === 0 ? <p className="muted">No leads match these filters.</p> : null}
      {leads.length > 0 ? <LeadsTable leads={leads} /> : null}

      <Pagination filterQuery={filterQuery} isFirstPage={isFirstPage} nextCursor={nextCursor} />
    </>
  );
}

type FilterName = (typeof FILTER_NAMES)[number];
type FilterValues = Record<string, string>;

/** A GET form: every filtered view is a URL that can be shared and bookmarked. */
function LeadFilters({
  values,
  errors,
  forms,
  busy,
}: {
  values: FilterValues;
  errors: ErrorDetail[];
  forms: Array<{ id: string; name: string; status: string }>;
  busy: boolean;
}) {
  return (
    <Form method="get" action="/leads" className="card" aria-label="Filter leads">
      <div className="row">
        <div>
          <label htmlFor="filter-formId">Form</label>
          <select id="filter-formId" name="formId" defaultValue={values.formId}>
            <option value="">All forms</option>
            {forms.map((form) => (
              <option key={form.id} value={form.id}>
                {form.name}
                {form.status === "archived" ? " (archived)" : ""}
              </option>
            ))}
          </select>
        </div>
        <FilterInput name="from" label="From" type="date" values={values} errors={errors} />
        <FilterInput name="to" label="To" type="date" values={values} errors={errors} />
        <FilterInput name="q" label="Search" type="search" values={values} errors={errors} />
      </div>
      <div className="row">
        <FilterInput name="utm_source" label="utm_source" values={values} errors={errors} />
        <FilterInput name="utm_medium" label="utm_medium" values={values} errors={errors} />
        <FilterInput name="utm_campaign" label="utm_campaign" values={values} errors={errors} />
        <div>
          <label htmlFor="filter-spam">Spam</label>
          <select id="filter-spam" name="spam" defaultValue={values.spam || "false"}>
            <option value="false">Hide spam</option>
            <option value="true">Only spam</option>
            <option value="all">Spam and not spam</option>
          </select>
        </div>
      </div>
      {errors.length > 0 && errors.some((error) => !FILTER_NAMES.includes(error.path as never)) ? (
        <p className="error" role="alert">
          {errors.map((error) => `${error.path}: ${error.message}`).join(" ")}
        </p>
      ) : null}
      <p className="actions">
        <button type="submit" disabled={busy}>
          {busy ? "Filtering…" : "Filter"}
        </button>
        <Link to="/leads">Clear filters</Link>
      </p>
    </Form>
  );
}

function FilterInput({
  name,
  label,
  type = "text",
  values,
  errors,
}: {
  name: FilterName;
  label: string;
  type?: string;
  values: FilterValues;
  errors: ErrorDetail[];
}) {
  const error = errors.find((candidate) => candidate.path === name)?.message;
  return (
    <div>
      <label htmlFor={`filter-${name}`}>{label}</label>
      <input
        id={`filter-${name}`}
        name={name}
        type={type}
        defaultValue={values[name]}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `filter-${name}-error` : undefined}
      />
      {error ? (
        <p id={`filter-${name}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function ExportLinks({ filterQuery, invalid }: { filterQuery: string; invalid: boolean }) {
  const exportHref = (format: "csv" | "xlsx") =>
    `/api/leads/export?format=${format}${filterQuery ? `&${filterQuery}` : ""}`;
  if (invalid) {
    return (
      <p className="error" role="alert">
        Fix the filters above to see leads.
      </p>
    );
  }
  return (
    <p className="actions">
      <a className="button secondary" href={exportHref("csv")} download>
        Download CSV
      </a>
      <a className="button secondary" href={exportHref("xlsx")} download>
        Download Excel
      </a>
      <span className="muted">Exports every lead of this view, not only this page.</span>
    </p>
  );
}

function LeadsTable({ leads }: { leads: LeadSummary[] }) {
  return (
    <table aria-label="Leads">
      <thead>
        <tr>
          <th>Submitted</th>
          <th>Form</th>
          <th>Lead</th>
          <th>Source</th>
        </tr>
      </thead>
      <tbody>
        {leads.map((lead) => (
          <tr key={lead.id}>
            <td>
              <Link to={`/leads/${lead.id}`}>
                <time dateTime={lead.createdAt}>{lead.createdAt.slice(0, 16).replace("T", " ")} UTC</time>
              </Link>
            </td>
            <td>{lead.formName}</td>
            <td>
              {summary(lead)} {lead.isSpam ? <span className="badge spam">spam</span> : null}
            </td>
            <td>
              {[lead.utm.utm_source, lead.utm.utm_medium, lead.utm.utm_campaign].filter(Boolean).join(" / ") ||
                lead.referrerHost || <span className="muted">direct</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Pagination({
  filterQuery,
  isFirstPage,
  nextCursor,
}: {
  filterQuery: string;
  isFirstPage: boolean;
  nextCursor: string | null;
}) {
  return (
    <nav className="actions" aria-label="Pages" style={{ marginTop: "1rem" }}>
      {!isFirstPage ? <Link to={`/leads${filterQuery ? `?${filterQuery}` : ""}`}>Newest</Link> : null}
      {nextCursor ? (
        <Link to={`/leads?${filterQuery ? `${filterQuery}&` : ""}cursor=${encodeURIComponent(nextCursor)}`} rel="next">
          Older leads
        </Link>
      ) : null}
    </nav>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

// /leads: the lead list with its filters, and the bulk form around the table (Apply or Export,
// a plain post without JavaScript; Conform answers a refusal next to its field and checks
// the choice in the browser first).
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, redirectDocument } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { actorOf } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { BulkDeleteConfirm, BulkForm, type BulkAnswer, type BulkEcho } from "~/components/leads/BulkActions";
import { FILTER_NAMES, LeadFilters, TagSuggestions, type OwnerChoice } from "~/components/leads/LeadFilters";
import { LeadsTable } from "~/components/leads/LeadsTable";
import { ExportLinks, Pagination } from "~/components/leads/ListLinks";
import { RouteError } from "~/components/RouteError";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { asFormError, bulkNotice, exportHref, readBulkForm, selectionOf } from "~/leads/bulk/lead-bulk-form.server";
import { bulkUpdate } from "~/leads/bulk/lead-bulk.server";
import {
  DEFAULT_PAGE_SIZE,
  LEAD_STATUSES,
  filtersToSearchParams,
  forViewer,
  parseLeadListQuery,
  type LeadListQuery,
} from "~/leads/lead-filters.server";
import { BulkFormSchema } from "~/leads/lead-schemas";
import { tagSuggestions } from "~/leads/lead-work.server";
import { countLeads, listFormChoices, listLeads, type LeadSummary } from "~/leads/lead.server";
import { authorize, requireUser } from "~/staff/auth.server";
import { can } from "~/staff/policy";
import { listStaff } from "~/staff/staff.server";
import { DomainError } from "~/utils/domain-error";
import { noticeCookieFor, takeNotice } from "~/utils/http/notice.server";
import { page } from "~/utils/http/page.server";
import { plural } from "~/utils/plural";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Leads · Lead Capture" }];

/** The list's query string: its filters, and its page size when not the default (no cursor). */
function listQuery(query: LeadListQuery): string {
  const params = filtersToSearchParams(query);
  if (query.limit !== DEFAULT_PAGE_SIZE) params.set("limit", String(query.limit));
  return params.toString();
}

/** A query string sent back by a form, as the list reads it; "" when it is not one. */
function canonicalQuery(raw: string): string {
  const parsed = parseLeadListQuery(new URLSearchParams(raw));
  return parsed.ok ? listQuery(parsed.value) : "";
}

async function ownerChoices(): Promise<OwnerChoice[]> {
  return (await listStaff()).map((member) => ({
    id: member.id,
    label: member.name || member.email,
    // Only enabled staff who have joined can be given leads.
    active: member.status === "active",
  }));
}

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "leads.read");
  const url = new URL(request.url);
  // A GET form sends its empty inputs too: the same view without them is the URL to keep.
  const empty = [...url.searchParams].filter(([, value]) => value === "").map(([name]) => name);
  if (empty.length > 0) {
    for (const name of empty) url.searchParams.delete(name, "");
    throw redirect(`${url.pathname}${url.search}`);
  }
  const values = Object.fromEntries(FILTER_NAMES.map((name) => [name, url.searchParams.get(name) ?? ""]));
  const parsed = parseLeadListQuery(url.searchParams);
  const [forms, owners, tags, { notice, headers }] = await Promise.all([
    listFormChoices(),
    ownerChoices(),
    tagSuggestions(),
    takeNotice(request),
  ]);
  const common = { values, forms, owners, tags, statuses: LEAD_STATUSES, notice, canExport: can(user, "leads.export") };
  if (!parsed.ok) {
    const none = { leads: [] as LeadSummary[], nextCursor: null, total: 0, filterQuery: "", isFirstPage: true };
    return data({ ...common, ...none, errors: parsed.details, deleted: false }, { status: 422, headers });
  }
  const { leads, nextCursor, total } = await listLeads(forViewer(parsed.value, user.id), { count: true });
  return data(
    {
      ...common,
      errors: [],
      leads,
      nextCursor,
      total: total ?? leads.length,
      // Page size travels with the pages, so "Next" shows the same number of rows.
      filterQuery: listQuery(parsed.value),
      isFirstPage: !parsed.value.cursor,
      deleted: url.searchParams.get("deleted") === "1",
    },
    { headers },
  );
});

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  await requireUser(request);
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent !== "bulk" && intent !== "export") throw new Response("Unknown action.", { status: 400 });
  const user = await authorize(request, intent === "export" ? "leads.export" : "leads.write");
  const selection = selectionOf(form);
  const echo: BulkEcho = {
    ...selection,
    filter: canonicalQuery(selection.filter),
    operation: String(form.get("operation") ?? ""),
    tag: String(form.get("tag") ?? ""),
  };
  try {
    // A download, not a page: with JavaScript too the browser itself follows it.
    if (intent === "export") return redirectDocument(exportHref(selection));
    const { request: bulk } = readBulkForm(form, user.id);
    if (bulk.action === "delete" && form.get("confirmed") !== "yes") {
      const count = bulk.ids ? bulk.ids.length : await countLeads(bulk.filter);
      return { kind: "confirm-delete", count, echo } satisfies BulkAnswer;
    }
    const affected = await bulkUpdate(bulk, actorOf(user, context));
    const owner =
      bulk.action === "assign" && bulk.value ? (await ownerChoices()).find((o) => o.id === bulk.value) : undefined;
    const notice = await noticeCookieFor(bulkNotice(bulk, affected, owner?.label));
    return redirect(`/leads${echo.filter ? `?${echo.filter}` : ""}`, { headers: { "Set-Cookie": notice } });
  } catch (error) {
    const refused = asFormError(error, echo.operation);
    if (!(refused instanceof DomainError) || refused.code !== "validation_failed") throw error;
    // The operation's own refusals (the same as the API's), next to the fields they name.
    const reply = parseWithZod(form, { schema: BulkFormSchema }).reply({
      formErrors: ["Nothing was changed: see the marked field."],
      fieldErrors: fieldErrorsFrom(refused.details),
    });
    return data({ kind: "refused", reply, echo } satisfies BulkAnswer, { status: 422 });
  }
});

export default function LeadsPage() {
  const { values, errors, forms, owners, tags, statuses, notice, canExport, leads, total, deleted, ...list } =
    useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as BulkAnswer | undefined;
  const navigation = useNavigation();
  const location = useLocation();
  const busy = navigation.state === "loading" && navigation.location?.pathname === "/leads";
  const submitting = navigation.state === "submitting" && navigation.formAction?.startsWith("/leads") === true;
  const checked = new Set(answer?.echo.scope === "selected" ? answer.echo.ids : []);

  const formQuery = values.formId ? `?formId=${encodeURIComponent(values.formId)}` : "";
  return (
    <>
      <div className="actions" style={{ justifyContent: "space-between" }}>
        <h1>Leads</h1>
        <span>
          <Link to={`/leads/sources${formQuery}`}>Where leads come from</Link> ·{" "}
          <Link to={`/leads/partial${formQuery}`}>Partial leads</Link>
        </span>
      </div>
      <ActionNotice done={deleted ? "The lead was deleted." : notice} />

      <TagSuggestions tags={tags} />
      <LeadFilters values={values} errors={errors} forms={forms} statuses={statuses} owners={owners} busy={busy} />
      <ExportLinks filterQuery={list.filterQuery} invalid={errors.length > 0} />

      {errors.length === 0 ? (
        <p className="muted" data-testid="lead-total">
          {`${plural(total, "lead")} ${total === 1 ? "matches" : "match"} these filters.`}
        </p>
      ) : null}
      {answer?.kind === "confirm-delete" ? <BulkDeleteConfirm answer={answer} busy={submitting} /> : null}
      {leads.length > 0 ? (
        <BulkForm
          // A new page (after a change, or another filter) starts with nothing ticked.
          key={location.key}
          filterQuery={list.filterQuery}
          total={total}
          statuses={statuses}
          owners={owners}
          canExport={canExport}
          refused={answer?.kind === "refused" ? answer : undefined}
          busy={submitting}
        >
          <LeadsTable leads={leads} checked={checked} />
        </BulkForm>
      ) : null}

      <Pagination {...list} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

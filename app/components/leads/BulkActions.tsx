// Bulk actions on the lead list, as one plain POST form around the table (works without
// JavaScript): which leads (ticked rows or all matching the filter), one action select,
// the tag to add or remove, and Apply or Export. Deleting asks again (BulkDeleteConfirm).
import { Form, Link } from "@remix-run/react";
import type { ErrorDetail } from "~/utils/domain-error";
import { plural } from "~/utils/plural";
import type { OwnerChoice } from "./LeadFilters";
import type { ReactNode } from "react";

/** What the form sent, sent back when it was refused so no tick or choice is lost. */
export type BulkEcho = { scope: "selected" | "all"; ids: string[]; filter: string; operation: string; tag: string };

export type BulkAnswer =
  | { kind: "refused"; message: string; details: ErrorDetail[]; echo: BulkEcho }
  | { kind: "confirm-delete"; count: number; echo: BulkEcho };

const errorOf = (details: ErrorDetail[], field: string) =>
  details.find((detail) => detail.path === field || detail.path.startsWith(`${field}.`))?.message;

export function BulkForm({
  filterQuery,
  total,
  statuses,
  owners,
  canExport,
  refused,
  busy,
  children,
}: {
  filterQuery: string;
  total: number;
  statuses: readonly string[];
  owners: OwnerChoice[];
  canExport: boolean;
  refused?: Extract<BulkAnswer, { kind: "refused" }>;
  busy: boolean;
  children: ReactNode;
}) {
  const echo = refused?.echo;
  const details = refused?.details ?? [];
  const idsError = errorOf(details, "ids");
  const operationError = errorOf(details, "operation");
  const tagError = errorOf(details, "tag");
  const other = details.filter((detail) => !["ids", "operation", "tag"].includes(detail.path.split(".")[0]));
  return (
    <Form method="post" action={`/leads${filterQuery ? `?${filterQuery}` : ""}`}>
      <input type="hidden" name="filter" value={filterQuery} />
      <details className="card fold bulk" open={Boolean(refused)}>
        <summary>Change several leads</summary>
        <fieldset>
          <legend className="fold-legend">Change several leads</legend>
          <div className="row">
            <ScopeChoice total={total} all={echo?.scope === "all"} error={idsError} />
            <OperationSelect
              statuses={statuses}
              owners={owners}
              defaultValue={echo?.operation ?? ""}
              error={operationError}
            />
            <div>
              <label htmlFor="bulk-tag">Tag (added or removed)</label>
              <input
                id="bulk-tag"
                name="tag"
                list="lead-tags"
                defaultValue={echo?.tag ?? ""}
                aria-invalid={tagError ? true : undefined}
                aria-describedby={tagError ? "bulk-tag-error" : undefined}
              />
              {tagError ? (
                <p id="bulk-tag-error" className="field-error">
                  {tagError}
                </p>
              ) : null}
            </div>
          </div>
          {refused ? (
            <p className="error" role="alert">
              {refused.message}
              {other.map((detail) => ` ${detail.path}: ${detail.message}`).join("")}
            </p>
          ) : null}
          <p className="actions">
            <button type="submit" name="intent" value="bulk" disabled={busy}>
              {busy ? "Applying…" : "Apply"}
            </button>
            {canExport ? (
              <button type="submit" name="intent" value="export" className="secondary">
                Export the selection (CSV)
              </button>
            ) : null}
          </p>
        </fieldset>
      </details>
      {children}
    </Form>
  );
}

function ScopeChoice({ total, all, error }: { total: number; all: boolean; error?: string }) {
  return (
    <div role="radiogroup" aria-label="Which leads" aria-describedby={error ? "bulk-ids-error" : undefined}>
      <label className="inline">
        <input type="radio" name="scope" value="selected" defaultChecked={!all} /> The ticked rows
      </label>
      <label className="inline">
        <input type="radio" name="scope" value="all" defaultChecked={all} />{" "}
        {`All ${total} ${total === 1 ? "lead" : "leads"} matching this filter`}
      </label>
      {error ? (
        <p id="bulk-ids-error" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** One select for every action: the value says which and with what (`status:won`, `owner:<id>`). */
function OperationSelect({
  statuses,
  owners,
  defaultValue,
  error,
}: {
  statuses: readonly string[];
  owners: OwnerChoice[];
  defaultValue: string;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor="bulk-operation">Action</label>
      <select
        id="bulk-operation"
        name="operation"
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "bulk-operation-error" : undefined}
      >
        <option value="">Choose…</option>
        <optgroup label="Status">
          {statuses.map((status) => (
            <option key={status} value={`status:${status}`}>
              Mark {status}
            </option>
          ))}
        </optgroup>
        <optgroup label="Owner">
          <option value="owner:none">Unassign</option>
          {owners
            .filter((owner) => owner.active)
            .map((owner) => (
              <option key={owner.id} value={`owner:${owner.id}`}>
                Assign to {owner.label}
              </option>
            ))}
        </optgroup>
        <optgroup label="Tags">
          <option value="tag">Add the tag</option>
          <option value="untag">Remove the tag</option>
        </optgroup>
        <option value="delete">Delete…</option>
      </select>
      {error ? (
        <p id="bulk-operation-error" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The second step of a bulk delete: the same selection, sent again with `confirmed`. */
export function BulkDeleteConfirm({
  answer,
  busy,
}: {
  answer: Extract<BulkAnswer, { kind: "confirm-delete" }>;
  busy: boolean;
}) {
  const { echo, count } = answer;
  const leads = plural(count, "lead");
  return (
    <section className="card error-panel" role="alertdialog" aria-labelledby="bulk-delete-heading">
      <h2 id="bulk-delete-heading">{`Delete ${leads}?`}</h2>
      <p>The leads, their values, notes and timelines are removed for good; exports will no longer include them.</p>
      <Form method="post" action={`/leads${echo.filter ? `?${echo.filter}` : ""}`} className="actions">
        <input type="hidden" name="operation" value="delete" />
        <input type="hidden" name="confirmed" value="yes" />
        <input type="hidden" name="scope" value={echo.scope} />
        <input type="hidden" name="filter" value={echo.filter} />
        {echo.scope === "selected"
          ? echo.ids.map((id) => <input key={id} type="hidden" name="ids" value={id} />)
          : null}
        <button type="submit" name="intent" value="bulk" className="danger" disabled={busy}>
          {busy ? "Deleting…" : `Yes, delete ${leads}`}
        </button>
        <Link to={`/leads${echo.filter ? `?${echo.filter}` : ""}`}>Cancel</Link>
      </Form>
    </section>
  );
}

// Bulk actions on the lead list, as one plain POST form around the table (works without
// JavaScript): which leads (ticked rows or all matching the filter), one action select,
// the tag to add or remove, and Apply or Export. Deleting asks again (BulkDeleteConfirm).
// Conform shows the action's refusals next to their fields, and checks in the browser that
// leads and an action are chosen before anything is sent.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "@remix-run/react";
import { BulkFormSchema } from "~/leads/lead-schemas";
import { plural } from "~/utils/plural";
import type { OwnerChoice } from "./LeadFilters";
import type { ReactNode } from "react";

/** What the form sent, sent back when it was refused so no tick or choice is lost. */
export type BulkEcho = { scope: "selected" | "all"; ids: string[]; filter: string; operation: string; tag: string };

export type BulkAnswer =
  | { kind: "refused"; reply: SubmissionResult<string[]>; echo: BulkEcho }
  | { kind: "confirm-delete"; count: number; echo: BulkEcho };

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
  const [form, fields] = useForm({
    id: "bulk",
    lastResult: refused?.reply,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: BulkFormSchema }),
  });
  // `ids[0]`: a ticked row the operation refused, said with the choice of rows.
  const idsError = Object.values(fields.ids.allErrors)[0]?.[0];
  const operationError = fields.operation.errors?.[0];
  const tagError = fields.tag.errors?.[0];
  // Refusals of no field of the form (a tampered filter), said with the whole.
  const other = Object.entries(form.allErrors)
    .filter(([name]) => name !== "" && !["ids", "operation", "tag"].includes(name.split(/[.[]/)[0]))
    .map(([name, messages]) => ` ${name}: ${messages.join(" ")}`)
    .join("");
  const refusal = form.errors?.[0];
  return (
    <Form
      method="post"
      action={`/leads${filterQuery ? `?${filterQuery}` : ""}`}
      {...getFormProps(form)}
      // Without JavaScript the browser sends it as it is; the server answers any refusal.
      noValidate
    >
      <input type="hidden" name="filter" value={filterQuery} />
      <details className="card fold bulk" open={Boolean(refused) || Object.keys(form.allErrors).length > 0}>
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
            <TagInput defaultValue={echo?.tag ?? ""} error={tagError} />
          </div>
          {refusal || other ? (
            <p className="error" role="alert">
              {refusal}
              {other}
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

function TagInput({ defaultValue, error }: { defaultValue: string; error?: string }) {
  return (
    <div>
      <label htmlFor="bulk-tag">Tag (added or removed)</label>
      <input
        id="bulk-tag"
        name="tag"
        list="lead-tags"
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "bulk-tag-error" : undefined}
      />
      {error ? (
        <p id="bulk-tag-error" className="field-error">
          {error}
        </p>
      ) : null}
    </div>
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

// The lead rows. Each row's date is a real link to the lead (what works without
// JavaScript); with JavaScript a click anywhere else on the row opens it too, except on
// the checkbox and the links (mailto) in it.
import { Link, useNavigate } from "@remix-run/react";
import { Breakable } from "~/components/Breakable";
import { useHydrated } from "~/components/form-builder/shared";
import { LocalTime } from "~/components/LocalTime";
import { TableScroll } from "~/components/TableScroll";
import type { LeadValue } from "~/forms/schema/form-schema";
import type { LeadSummary } from "~/leads/lead-detail.server";
import type { ChangeEvent, MouseEvent } from "react";

function preview(value: LeadValue | undefined): string {
  if (value === undefined) return "";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

/** The lead's first few answers, without the address that has its own column. */
function summary(lead: LeadSummary): string {
  const email = lead.email?.toLowerCase();
  const text = Object.values(lead.data)
    .map(preview)
    .filter((value) => value && value.toLowerCase() !== email)
    .slice(0, 3)
    .join(" · ")
    // A preview: a run of characters longer than a word is cut, so it cannot widen the table.
    .replace(/\S{25,}/g, (word) => `${word.slice(0, 23)}…`);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

const INTERACTIVE = "a, button, input, label, select, textarea";

export function LeadsTable({ leads, checked }: { leads: LeadSummary[]; checked: ReadonlySet<string> }) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const open = (event: MouseEvent<HTMLTableRowElement>, id: string) => {
    if ((event.target as Element).closest(INTERACTIVE)) return;
    // Selecting text in a row (to copy it) is not a click on it.
    if (window.getSelection()?.toString()) return;
    if (event.metaKey || event.ctrlKey) window.open(`/leads/${id}`, "_blank", "noopener");
    else navigate(`/leads/${id}`);
  };
  const selectPage = (event: ChangeEvent<HTMLInputElement>) => {
    const boxes = event.currentTarget.form?.querySelectorAll<HTMLInputElement>('input[name="ids"]') ?? [];
    for (const box of boxes) box.checked = event.currentTarget.checked;
  };
  return (
    <TableScroll label="Leads table">
      <table aria-label="Leads" className={hydrated ? "leads clickable" : "leads"}>
        <thead>
          <tr>
            <th scope="col">
              {hydrated ? (
                <input type="checkbox" aria-label="Select all on this page" onChange={selectPage} />
              ) : (
                <span className="sr-only">Select</span>
              )}
            </th>
            <th scope="col">Submitted</th>
            <th scope="col">Form</th>
            <th scope="col">Lead</th>
            <th scope="col">Email</th>
            <th scope="col">Status</th>
            <th scope="col">Owner</th>
            <th scope="col">Tags</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {leads.map((lead) => (
            <tr key={lead.id} onClick={hydrated ? (event) => open(event, lead.id) : undefined}>
              <td>
                <label className="row-select">
                  <input
                    type="checkbox"
                    name="ids"
                    value={lead.id}
                    defaultChecked={checked.has(lead.id)}
                    aria-label={`Select ${lead.email || summary(lead) || "this lead"}`}
                  />
                </label>
              </td>
              <td data-label="Submitted">
                <Link to={`/leads/${lead.id}`}>
                  <LocalTime iso={lead.createdAt} />
                </Link>
              </td>
              <td data-label="Form">{lead.formName}</td>
              <td data-label="Lead">{summary(lead)}</td>
              <td data-label="Email">
                {lead.email ? (
                  <a href={`mailto:${lead.email}`}>
                    <Breakable text={lead.email} />
                  </a>
                ) : null}
              </td>
              <WorkCells lead={lead} />
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** Where the lead stands: status, owner, tags and source. */
function WorkCells({ lead }: { lead: LeadSummary }) {
  return (
    <>
      <td data-label="Status">
        <span className={`badge status-${lead.status}`}>{lead.status}</span>
      </td>
      <td data-label="Owner">
        {lead.owner ? <Breakable text={lead.owner.name || lead.owner.email} /> : <span className="muted">—</span>}
      </td>
      <td data-label="Tags">
        {lead.tags.map((tag) => (
          <span key={tag} className="badge tag">
            {tag}
          </span>
        ))}
      </td>
      <td data-label="Source">
        {[lead.utm.utm_source, lead.utm.utm_medium, lead.utm.utm_campaign].filter(Boolean).join(" / ") ||
          lead.referrerHost || <span className="muted">direct</span>}
      </td>
    </>
  );
}

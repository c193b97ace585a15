// A lead's submitted values, labelled by the schema version it was stored under (email
// addresses as mailto: links), and where it came from (UTM parameters, referrer, page).
import { ConsentText } from "~/components/FormFields";
import { LocalTime } from "~/components/LocalTime";
import type { LeadValue } from "~/forms/schema/form-schema";
import type { Consent, Utm } from "~/leads/lead-detail.server";

type Field = { key: string; label: string; type: string };

function display(value: LeadValue | undefined): string {
  if (value === undefined || value === "") return "—";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  return Array.isArray(value) ? value.join(", ") || "—" : String(value);
}

type LeadFile = { id: string; field: string; filename: string; size: number };

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A file field's files, each a download from the dashboard (decision 064). */
function FileLinks({ leadId, files }: { leadId: string; files: LeadFile[] }) {
  if (files.length === 0) return <>—</>;
  return (
    <ul className="plain">
      {files.map((file) => (
        <li key={file.id}>
          <a href={`/leads/${encodeURIComponent(leadId)}/files/${encodeURIComponent(file.id)}`} download>
            {file.filename}
          </a>{" "}
          <span className="muted">({size(file.size)})</span>
        </li>
      ))}
    </ul>
  );
}

export function LeadValues({
  lead,
}: {
  lead: { id: string; fields: Field[]; data: Record<string, LeadValue>; files: LeadFile[] };
}) {
  return (
    <section className="card" aria-labelledby="values-heading">
      <h2 id="values-heading">Values</h2>
      <table>
        <tbody>
          {lead.fields.map((field) => {
            const value = lead.data[field.key];
            return (
              <tr key={field.key}>
                <th scope="row">{field.label}</th>
                <td style={{ whiteSpace: "pre-wrap" }}>
                  {field.type === "file" ? (
                    <FileLinks leadId={lead.id} files={lead.files.filter((file) => file.field === field.key)} />
                  ) : field.type === "email" && typeof value === "string" && value !== "" ? (
                    <a href={`mailto:${value}`}>{value}</a>
                  ) : (
                    display(value)
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

type Source = {
  utm: Utm;
  referrerUrl: string | null;
  landingPageUrl: string | null;
  userAgent: string | null;
};

export function LeadSource({ lead }: { lead: Source }) {
  const rows: Array<[string, string | null]> = [
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
    <section className="card" aria-labelledby="source-heading">
      <h2 id="source-heading">Source</h2>
      <table>
        <tbody>
          {rows.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              <td>{value ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** What the visitor agreed to (decision 065): each consent's exact text, its version and when. */
export function LeadConsents({ lead }: { lead: { fields: Field[]; consents: Consent[] } }) {
  if (lead.consents.length === 0) return null;
  const labelOf = (key: string) => lead.fields.find((field) => field.key === key)?.label ?? key;
  return (
    <section className="card" aria-labelledby="consents-heading">
      <h2 id="consents-heading">Consents</h2>
      <ul className="consents">
        {lead.consents.map((consent) => (
          <li key={consent.field}>
            <strong>{labelOf(consent.field)}</strong>: agreed <LocalTime iso={consent.acceptedAt} seconds /> to
            <blockquote style={{ whiteSpace: "pre-wrap" }}>
              <ConsentText text={consent.text} />
            </blockquote>
            <small className="muted">Text version {consent.version}</small>
          </li>
        ))}
      </ul>
    </section>
  );
}

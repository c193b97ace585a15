// The audit log in words: "Ada exported 1,204 leads of Contact us". One sentence per action
// (AUDIT_ACTIONS), built from the entry and the names its ids stand for, looked up for a whole
// page at once (audit-names.server.ts). A name that is gone reads "a deleted form", never an id.
import { plural } from "~/utils/plural";
import type { AuditAction } from "./audit-actions";

export type AuditNames = {
  /** Staff user id → name, or email when they gave none. */
  people: Record<string, string>;
  forms: Record<string, string>;
  /** Lead id → the person's name, or their email. */
  leads: Record<string, string>;
  /** Webhook id → its URL (also from its creation entry once it is deleted). */
  webhooks: Record<string, string>;
  tokens: Record<string, string>;
};

export type DescribedEntry = {
  action: string;
  actor: { id: string; email: string | null } | null;
  target: string | null;
  details: Record<string, unknown>;
};

export const NO_NAMES: AuditNames = { people: {}, forms: {}, leads: {}, webhooks: {}, tokens: {} };

type Parts = { entry: DescribedEntry; names: AuditNames; details: Record<string, unknown> };

/** The id after "kind:" in a target such as "form:cm123", or null. */
export function targetId(target: string | null, kind: string): string | null {
  return target?.startsWith(`${kind}:`) ? target.slice(kind.length + 1) : null;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value : null;
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function named(names: Record<string, string>, id: string | null, gone: string): string {
  return (id && names[id]) || gone;
}

/** The staff user a target or details name: their name, the email kept in the entry, or "someone removed". */
function member({ entry, names, details }: Parts): string {
  return named(names.people, targetId(entry.target, "user"), text(details.email) ?? "a removed staff user");
}

/** "the form Contact us", or `gone` once the form is deleted. */
function form({ names, entry }: Parts, gone = "a deleted form"): string {
  const id = targetId(entry.target, "form");
  return id && names.forms[id] ? `the form ${names.forms[id]}` : gone;
}

function formatOf(details: Record<string, unknown>): string {
  return details.format === "xlsx" ? "Excel" : "CSV";
}

function exportFilters(parts: Parts): string {
  const filters = (parts.details.filters ?? {}) as Record<string, unknown>;
  const rest = Object.keys(filters).filter((key) => key !== "formId");
  const formId = typeof filters.formId === "string" ? filters.formId : null;
  const which = formId ? `of ${named(parts.names.forms, formId, "a deleted form")}` : "of all forms";
  return `${which}${rest.length ? ` (filtered by ${rest.join(", ")})` : ""}`;
}

function bulk(parts: Parts): string {
  const { details, names } = parts;
  const leads = plural(count(details.affected), "lead");
  const value = text(details.value);
  switch (details.action) {
    case "set_status":
      return `set ${leads} to ${value ?? "a status"}`;
    case "assign":
      return value
        ? `assigned ${leads} to ${named(names.people, value, "a removed staff user")}`
        : `unassigned ${leads}`;
    case "tag":
      return `tagged ${leads} “${value ?? ""}”`;
    case "untag":
      return `removed the tag “${value ?? ""}” from ${leads}`;
    case "delete":
      return `deleted ${leads}`;
    default:
      return `changed ${leads}`;
  }
}

function staffChange(parts: Parts): string {
  const change = (parts.details.change ?? {}) as { role?: unknown; disabled?: unknown };
  const whom = member(parts);
  const said: string[] = [];
  const from = text(parts.details.previousRole);
  if (text(change.role)) said.push(`changed ${whom}’s role ${from ? `from ${from} ` : ""}to ${String(change.role)}`);
  if (change.disabled === true) said.push(`disabled ${whom}`);
  if (change.disabled === false) said.push(`enabled ${whom}`);
  return said.join(" and ") || `changed ${whom}`;
}

function webhookUrl({ entry, names }: Parts): string {
  return named(names.webhooks, targetId(entry.target, "webhook"), "(a deleted endpoint)");
}

function webhook(parts: Parts): string {
  return `the webhook ${webhookUrl(parts)}`;
}

function webhookUpdate(parts: Parts): string {
  const { details } = parts;
  if (details.enabled === true) return `turned on ${webhook(parts)}`;
  if (details.enabled === false) return `paused ${webhook(parts)}`;
  const fields = Array.isArray(details.fields) ? details.fields.map(String) : [];
  return `changed ${webhook(parts)}${fields.length ? ` (${fields.join(", ")})` : ""}`;
}

function token({ entry, names, details }: Parts): string {
  const name = text(details.name) ?? named(names.tokens, targetId(entry.target, "token"), "");
  return name ? `the API token “${name}”` : "an API token";
}

function passkey(details: Record<string, unknown>): string {
  const name = text(details.name);
  return name ? `the passkey “${name}”` : "a passkey";
}

function branding({ details }: Parts): string {
  const fields = Array.isArray(details.fields) ? details.fields.map(String) : [];
  const logo = details.logo === "replaced" ? "a new logo" : details.logo === "removed" ? "no logo" : null;
  const what = [fields.length ? fields.join(", ") : null, logo].filter(Boolean).join(" and ");
  return `changed the brand${what ? `: ${what}` : ""}`;
}

/** Why single sign-on was refused (app/staff/sign-in/sso-sign-in.server.ts), in words. */
const SSO_REFUSALS: Record<string, string> = {
  flow_expired: "the sign-in was not started in this browser or took too long",
  state_mismatch: "the answer's state did not match",
  provider_error: "the provider did not sign them in",
  provider_unreachable: "the provider could not be reached",
  token_rejected: "the provider's answer failed its checks",
  email_missing: "no email address",
  email_unverified: "the email address is not verified",
  user_disabled: "the account is disabled",
  unknown_user: "no account, and the domain is not allowed",
};

function securityChange({ details }: Parts): string {
  const changes = [
    details.requireTwoFactor === true ? "required two-factor sign-in" : null,
    details.requireTwoFactor === false ? "stopped requiring two-factor sign-in" : null,
    details.requireSso === true ? "required single sign-on for everybody but owners" : null,
    details.requireSso === false ? "stopped requiring single sign-on" : null,
  ].filter(Boolean);
  return changes.length ? `${changes.join(" and ")} for the team` : "changed the team's sign-in rules";
}

/** What follows the actor's name, for each action: a missing action fails to compile. */
const PREDICATES: Record<AuditAction, (parts: Parts) => string> = {
  "session.login": ({ details }) => (details.method === "passkey" ? "signed in with a passkey" : "signed in"),
  // The address typed is kept only when it is one (auth.server.ts keeps no stray password).
  "session.login_failed": ({ details }) =>
    details.method === "passkey"
      ? "failed to sign in with a passkey"
      : details.reason === "sso_required"
        ? `was refused a password sign-in as ${String(details.email)}: the team requires single sign-on`
        : text(details.email)?.includes("@")
          ? `failed to sign in as ${String(details.email)}`
          : "failed to sign in with something that is not an email address",
  "session.sso_login": ({ details }) =>
    details.joined === "created"
      ? "signed in through single sign-on for the first time and joined the team as an agent"
      : details.joined === "invitation"
        ? "signed in through single sign-on, accepting their invitation"
        : "signed in through single sign-on",
  "session.sso_refused": ({ details }) =>
    `was refused single sign-on${text(details.email) ? ` as ${String(details.email)}` : ""} (${SSO_REFUSALS[String(details.reason)] ?? String(details.reason ?? "no reason given")})`,
  "password.reset": () => "set a new password from a reset link",
  "password.change": ({ details }) =>
    `changed their password, ending ${plural(count(details.sessionsEnded), "other session")} and revoking ${plural(count(details.tokensRevoked), "API token")}`,
  "staff.join": () => "accepted their invitation and joined the team",
  "lead.export_started": (parts) => `started a ${formatOf(parts.details)} export of leads ${exportFilters(parts)}`,
  "lead.export": (parts) =>
    parts.details.complete === false
      ? `stopped a ${formatOf(parts.details)} export of leads ${exportFilters(parts)} after ${plural(count(parts.details.rows), "lead")}`
      : `exported ${plural(count(parts.details.rows), "lead")} ${exportFilters(parts)} as ${formatOf(parts.details)}`,
  "lead.delete": ({ entry, names }) => {
    const id = targetId(entry.target, "lead");
    return id && names.leads[id] ? `deleted the lead ${names.leads[id]}` : "deleted a lead";
  },
  "lead.bulk": bulk,
  "form.delete": (parts) =>
    `deleted ${form(parts, "a form")}${parts.details.deleteLeads ? " and its leads" : ", keeping its leads"}`,
  "form.archive": (parts) => `archived ${form(parts)}`,
  "form.unarchive": (parts) => `brought back ${form(parts)}`,
  "staff.invite": (parts) =>
    `invited ${text(parts.details.email) ?? member(parts)}${text(parts.details.role) ? ` as ${String(parts.details.role)}` : ""}`,
  "staff.invite_resend": (parts) => `sent ${text(parts.details.email) ?? member(parts)} a new invitation`,
  "staff.invite_revoke": (parts) => `revoked the invitation of ${text(parts.details.email) ?? member(parts)}`,
  "staff.update": staffChange,
  "token.create": (parts) => {
    const scopes = Array.isArray(parts.details.scopes) ? parts.details.scopes.map(String) : [];
    return `created ${token(parts)}${scopes.length ? ` (${scopes.join(", ")})` : ""}`;
  },
  "token.revoke": (parts) => `revoked ${token(parts)}`,
  "webhook.create": (parts) => `created the webhook ${text(parts.details.url) ?? webhookUrl(parts)}`,
  "webhook.update": webhookUpdate,
  "webhook.delete": (parts) => `deleted ${webhook(parts)}`,
  "webhook.rotate_secret": (parts) => `made a new signing secret for ${webhook(parts)}`,
  "branding.update": branding,
  "two_factor.enable": () => "turned on two-factor sign-in",
  "two_factor.disable": () => "turned off two-factor sign-in",
  "two_factor.recovery_used": ({ details }) =>
    `signed in with a recovery code (${plural(count(details.remaining), "code")} left)`,
  "two_factor.recovery_regenerate": () => "replaced their two-factor recovery codes",
  "passkey.add": ({ details }) => `added ${passkey(details)}`,
  "passkey.remove": ({ details }) => `removed ${passkey(details)}`,
  "security.update": securityChange,
  // The target names the address until the person is erased, then only its hash (decision 069).
  "people.export": ({ entry }) => `exported the data held for ${personOf(entry.target)}`,
  "people.erase": ({ details }) => {
    const counts = (details.counts ?? {}) as Record<string, unknown>;
    return `erased a person's data (${plural(count(counts.leads), "lead")}, ${plural(count(counts.supportRequests), "support request")})`;
  },
  // Decision 071: the person merged away is gone; its id is kept in the details.
  "people.merge": ({ entry, details }) =>
    `merged the person ${text(details.merged) ?? "(unknown)"} into ${personOf(entry.target)}`,
  "retention.form_leads": (parts) =>
    `deleted ${plural(count(parts.details.count), "lead")} of ${form(parts)} older than ${plural(count(parts.details.days), "day")}`,
  "mail.fetch": () => "asked for the support mailbox to be fetched now",
  "support.merge": ({ entry, details }) => {
    const source = targetId(entry.target, "ticket");
    return `merged ${source ? `the support request ${source}` : "a support request"} into ${text(details.into) ?? "another"} (${plural(count(details.messages), "message")}, ${plural(count(details.notes), "note")} moved)`;
  },
};

function personOf(target: string | null): string {
  const who = targetId(target, "person");
  return who?.startsWith("email-hmac:") ? "an erased person" : (who ?? "a person");
}

/** Who did it, in words: the actor's name, the email kept in the entry, or "Someone". */
export function actorName(entry: DescribedEntry, names: AuditNames): string {
  // Retention acts on its own (decision 069): no staff user to name.
  if (!entry.actor) return entry.action.startsWith("retention.") ? "Retention" : "Someone";
  return names.people[entry.actor.id] ?? entry.actor.email ?? "A removed staff user";
}

/** The entry as one sentence; an action this version does not know reads as its name. */
export function describeAuditEntry(entry: DescribedEntry, names: AuditNames = NO_NAMES): string {
  const predicate = PREDICATES[entry.action as AuditAction] as ((parts: Parts) => string) | undefined;
  const who = actorName(entry, names);
  const parts: Parts = { entry, names, details: entry.details ?? {} };
  return predicate ? `${who} ${predicate(parts)}.` : `${who}: ${entry.action}.`;
}

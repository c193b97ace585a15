// Who may do what: the one place the server decides it (docs/api/staff.md). Each permission
// is one function of the acting staff user; every page loader and action and every /api
// route asks `authorize(request, permission)` (app/staff/auth.server.ts) before it reads or
// writes anything, never the templates. ROUTE_PERMISSIONS says which permission each route
// and method needs, and tests/integration/permissions.test.ts requests every one of them as
// every role: a route file without an entry there fails that test.
import type { StaffRole } from "~/storage/db.server";

export const STAFF_ROLES = ["owner", "admin", "agent"] as const satisfies readonly StaffRole[];
export type { StaffRole };

export type Actor = { id: string; role: StaffRole };

/** The staff user a session or a token acts as. */
export type SessionUser = { id: string; email: string; name: string | null; role: StaffRole };

const anyone = () => true;
const managers = (actor: Actor) => actor.role === "owner" || actor.role === "admin";

/** One function per permission. */
export const policy = {
  /** See forms and their leads counts; the builder. */
  "forms.read": anyone,
  /** Create forms, edit their fields, settings and notifications. */
  "forms.write": anyone,
  /** Delete or archive a form (archiving stops its submissions). */
  "forms.delete": managers,
  /** See leads, their sources and details. */
  "leads.read": anyone,
  /** Change or delete a lead. */
  "leads.write": anyone,
  /** Download leads as CSV or Excel (personal data leaves the service). */
  "leads.export": managers,
  /** See support requests, their threads and attachments. */
  "support.read": anyone,
  /** Reply to support requests and change their status. */
  "support.write": anyone,
  /** Create, change, test and delete webhook endpoints; see their deliveries. */
  "webhooks.manage": managers,
  /** See the staff list (to assign work). */
  "staff.read": anyone,
  /** Invite staff, change roles, disable and enable accounts (owners: see canChangeStaff). */
  "staff.manage": managers,
  /** Set the company's name, logo and accent colour (public pages and emails). */
  "branding.manage": managers,
  /** Read the audit log (who exported, deleted or changed what). */
  "audit.read": managers,
  /** Require two-factor for the team, and say whether API tokens work meanwhile (decision 061). */
  "security.manage": (actor: Actor) => actor.role === "owner",
  /** Export or erase everything held for one email address (decision 069). */
  "people.manage": managers,
  /** See the support mailbox's connection (IMAP intake, decision 070) and fetch it now. */
  "mail.manage": managers,
  /** See people: their addresses, leads, support requests and first touch (decision 071). */
  "people.read": anyone,
  /** Join two records of one person (decision 071): as everyday as working a lead, and audited. */
  "people.merge": anyone,
} satisfies Record<string, (actor: Actor) => boolean>;

export type Permission = keyof typeof policy;

/** What each permission lets a person do, in the words a refusal page uses ("you cannot …"). */
export const PERMISSION_WORDS: Record<Permission, string> = {
  "forms.read": "see forms",
  "forms.write": "change forms",
  "forms.delete": "delete or archive forms",
  "leads.read": "see leads",
  "leads.write": "change leads",
  "leads.export": "export leads",
  "support.read": "see support requests",
  "support.write": "answer support requests",
  "webhooks.manage": "manage webhooks",
  "staff.read": "see the team",
  "staff.manage": "manage the team",
  "branding.manage": "change the brand",
  "audit.read": "read the audit log",
  "security.manage": "change the team's sign-in rules",
  "people.manage": "export or erase a person's data",
  "mail.manage": "manage the support mailbox",
  "people.read": "see people",
  "people.merge": "merge people",
};

/** A refusal a person understands: what their role cannot do, and whom to ask. */
export function refusalFor(role: StaffRole, permission: Permission): string {
  const who = role === "admin" ? "an admin" : role === "agent" ? "an agent" : "an owner";
  return `As ${who} you cannot ${PERMISSION_WORDS[permission]}. Ask an owner or an admin of your team if this needs doing.`;
}
export const PERMISSIONS = Object.keys(policy) as Permission[];

/** What a personal API token may be given (docs/api/tokens.md). */
export const TOKEN_SCOPES = [
  "forms:read",
  "forms:write",
  "leads:read",
  "leads:write",
  "leads:export",
  "support:read",
  "support:write",
  "webhooks:manage",
] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** The scope a token needs for each permission; null: no token may (staff management, the audit log and the brand need a login). */
export const SCOPE_FOR: Record<Permission, TokenScope | null> = {
  "forms.read": "forms:read",
  "forms.write": "forms:write",
  "forms.delete": "forms:write",
  "leads.read": "leads:read",
  "leads.write": "leads:write",
  "leads.export": "leads:export",
  "support.read": "support:read",
  "support.write": "support:write",
  "webhooks.manage": "webhooks:manage",
  "staff.read": null,
  "staff.manage": null,
  "audit.read": null,
  "branding.manage": null,
  "security.manage": null,
  "people.manage": null,
  "mail.manage": null,
  "people.read": "leads:read",
  "people.merge": "leads:write",
};

/** The scopes `actor` may put on a token: those whose permissions the role has. */
export function grantableScopes(actor: Actor): TokenScope[] {
  return TOKEN_SCOPES.filter((scope) =>
    PERMISSIONS.some((permission) => SCOPE_FOR[permission] === scope && can(actor, permission)),
  );
}

export function can(actor: Actor, permission: Permission): boolean {
  return policy[permission](actor);
}

/**
 * Whether `actor` may change `target`'s role or disable them: staff managers may, but only an
 * owner may change an owner or make someone an owner (an admin cannot remove owners).
 */
export function canChangeStaff(actor: Actor, target: { role: StaffRole }, newRole?: StaffRole): boolean {
  if (!can(actor, "staff.manage")) return false;
  if (actor.role === "owner") return true;
  return target.role !== "owner" && newRole !== "owner";
}

/**
 * What each route needs, by route file (app/routes) and method; a page action with several
 * intents names them (`POST intent`). "public": no login; "session": any logged-in staff user
 * acting on their own account; "inbound": the inbound email secret; "metrics": the metrics
 * token (METRICS_TOKEN).
 */
type Rule = Permission | "public" | "session" | "inbound" | "metrics";
export const ROUTE_PERMISSIONS: Record<string, Record<string, Rule>> = {
  _dashboard: { GET: "session" },
  "_dashboard._index": { GET: "leads.read" },
  "_dashboard.account": { GET: "session", POST: "session" },
  "_dashboard.account_.tokens": { GET: "session", POST: "session" },
  "_dashboard.account_.security": { GET: "session", POST: "session" },
  "_dashboard.forms._index": { GET: "forms.read", "POST create": "forms.write" },
  "_dashboard.forms.$id": { GET: "forms.read" },
  "_dashboard.forms.$id._index": { GET: "forms.read" },
  "_dashboard.forms.$id.fields": {
    GET: "forms.read",
    "POST add-field": "forms.write",
    "POST update-field": "forms.write",
    "POST move-field": "forms.write",
    "POST remove-field": "forms.write",
  },
  "_dashboard.forms.$id.settings": {
    GET: "forms.read",
    "POST update-details": "forms.write",
    "POST update-settings": "forms.write",
    "POST update-retention": "forms.write",
  },
  "_dashboard.forms.$id.notifications": { GET: "forms.read", "POST update-notifications": "forms.write" },
  "_dashboard.forms.$id.share": { GET: "forms.read" },
  "_dashboard.forms.$id.danger": {
    GET: "forms.read",
    "POST archive": "forms.delete",
    "POST unarchive": "forms.delete",
    "POST delete": "forms.delete",
  },
  "_dashboard.leads._index": {
    GET: "leads.read",
    "POST bulk": "leads.write",
    "POST export": "leads.export",
  },
  "_dashboard.leads.$id": {
    GET: "leads.read",
    "POST update": "leads.write",
    "POST note": "leads.write",
    "POST delete": "leads.write",
  },
  "_dashboard.leads.sources": { GET: "leads.read" },
  "_dashboard.leads.partial": { GET: "leads.read" },
  "_dashboard.people._index": { GET: "people.read" },
  "_dashboard.people.$id": { GET: "people.read", POST: "people.merge" },
  "_dashboard.settings.audit": { GET: "audit.read" },
  "_dashboard.settings.privacy": {
    GET: "people.manage",
    "POST export": "people.manage",
    "POST erase": "people.manage",
  },
  "_dashboard.settings.security": { GET: "security.manage", POST: "security.manage" },
  "_dashboard.settings.mail": { GET: "mail.manage", POST: "mail.manage" },
  "_dashboard.settings.branding": { GET: "branding.manage", POST: "branding.manage" },
  "_dashboard.settings.replies": { GET: "support.read", POST: "support.write" },
  "_dashboard.settings.staff": {
    GET: "staff.read",
    "POST role": "staff.manage",
    "POST disable": "staff.manage",
    "POST invite": "staff.manage",
    "POST resend": "staff.manage",
    "POST revoke": "staff.manage",
  },
  "_dashboard.settings.webhooks._index": { GET: "webhooks.manage", POST: "webhooks.manage" },
  "_dashboard.settings.webhooks.$id": { GET: "webhooks.manage", POST: "webhooks.manage" },
  "_dashboard.support._index": { GET: "support.read" },
  "_dashboard.support.$reference": { GET: "support.read", POST: "support.write" },
  "api.$": { GET: "public", POST: "public" },
  "api.audit": { GET: "audit.read" },
  "api.people.export": { GET: "people.manage" },
  "api.people.erase": { POST: "people.manage" },
  "api.people._index": { GET: "people.read" },
  "api.people.$id": { GET: "people.read" },
  "api.people.$id.merge": { POST: "people.merge" },
  "settings.privacy.export": { GET: "public", POST: "people.manage" },
  "api.settings.security": { GET: "security.manage", PATCH: "security.manage" },
  "api.auth.login": { POST: "public" },
  "api.auth.logout": { POST: "public" },
  "api.auth.me": { GET: "session" },
  "api.auth.2fa.setup": { POST: "session" },
  "api.auth.2fa.enable": { POST: "session" },
  "api.auth.2fa.disable": { POST: "session" },
  "api.auth.2fa.recovery-codes": { POST: "session" },
  "api.auth.passkeys._index": { GET: "session" },
  "api.auth.passkeys.$id": { DELETE: "session" },
  "api.auth.passkeys.registration": { POST: "session" },
  "api.auth.passkeys.registration.options": { POST: "session" },
  "api.auth.passkeys.login": { POST: "public" },
  "api.auth.passkeys.login.options": { POST: "public" },
  "api.forms._index": { GET: "forms.read", POST: "forms.write" },
  "api.forms.$id": { GET: "forms.read", PATCH: "forms.write", DELETE: "forms.delete" },
  "api.forms.$id.schema": { GET: "forms.read" },
  "api.forms.$id.stats": { GET: "leads.read" },
  "api.forms.$id.funnel": { GET: "leads.read" },
  "api.forms.$id.events": { POST: "public" },
  "api.forms.$id.views": { POST: "public" },
  "api.leads._index": { GET: "leads.read" },
  "api.leads.$id": { GET: "leads.read", PATCH: "leads.write", DELETE: "leads.write" },
  "api.leads.$id.notes": { POST: "leads.write" },
  "api.leads.$id.files.$fileId": { GET: "leads.read" },
  "api.leads.bulk": { POST: "leads.write" },
  "api.leads.export": { GET: "leads.export" },
  "api.leads.partial": { POST: "public" },
  "api.leads.submit": { POST: "public" },
  "api.staff._index": { GET: "staff.read", POST: "staff.manage" },
  "api.staff.$id": { PATCH: "staff.manage", DELETE: "staff.manage" },
  "api.staff.$id.invitation": { POST: "staff.manage" },
  "api.tokens._index": { GET: "session", POST: "session" },
  "api.tokens.$id": { DELETE: "session" },
  "api.settings.branding": { GET: "branding.manage", PATCH: "branding.manage" },
  "api.saved-replies._index": { GET: "support.read", POST: "support.write" },
  "api.saved-replies.$id": { PATCH: "support.write", DELETE: "support.write" },
  "api.support-requests._index": { GET: "support.read", POST: "public" },
  "api.support-requests.$ticket": { GET: "support.read", PATCH: "support.write" },
  "api.support-requests.$ticket.replies": { POST: "support.write" },
  "api.support-requests.$ticket.notes": { POST: "support.write" },
  "api.support-requests.$ticket.merge": { POST: "support.write" },
  "api.support-requests.inbound": { POST: "inbound" },
  "api.webhooks._index": { GET: "webhooks.manage", POST: "webhooks.manage" },
  "api.webhooks.$id": { GET: "webhooks.manage", PATCH: "webhooks.manage", DELETE: "webhooks.manage" },
  "api.webhooks.$id.deliveries._index": { GET: "webhooks.manage" },
  "api.webhooks.$id.deliveries.$deliveryId.retry": { POST: "webhooks.manage" },
  "api.webhooks.$id.rotate-secret": { POST: "webhooks.manage" },
  "api.webhooks.$id.test": { POST: "webhooks.manage" },
  "brand.logo.$hash": { GET: "public" },
  "embed[.]js": { GET: "public" },
  "auth.oidc": { GET: "public" },
  "auth.oidc_.callback": { GET: "public" },
  "forgot-password": { GET: "public", POST: "public" },
  "invite.$token": { GET: "public", POST: "public" },
  "reset-password.$token": { GET: "public", POST: "public" },
  "f.$formId": { GET: "public" },
  "f.$formId_.thanks": { GET: "public" },
  "confirm.$token": { GET: "public", POST: "public" },
  "unsubscribe.$token": { GET: "public", POST: "public" },
  healthz: { GET: "public" },
  login: { GET: "public", POST: "public" },
  logout: { POST: "public" },
  metrics: { GET: "metrics" },
  "support.$reference.attachments.$id": { GET: "support.read" },
  "leads.$id.files.$fileId": { GET: "leads.read" },
  "support.$reference.messages.$id.text": { GET: "support.read" },
  "support.new": { GET: "public", POST: "public" },
};

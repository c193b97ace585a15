// Every action the audit log records (docs/api/audit.md), apart from the server code that
// writes them so that the page's sentences and their tests can read the list.
export const AUDIT_ACTIONS = [
  "session.login",
  "session.login_failed",
  "password.reset",
  "password.change",
  "staff.join",
  "lead.export_started",
  "lead.export",
  "lead.delete",
  "lead.bulk",
  "form.delete",
  "form.archive",
  "form.unarchive",
  "staff.invite",
  "staff.invite_resend",
  "staff.invite_revoke",
  "staff.update",
  "token.create",
  "token.revoke",
  "webhook.create",
  "webhook.update",
  "webhook.delete",
  "webhook.rotate_secret",
  "branding.update",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

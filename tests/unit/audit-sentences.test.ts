// Every audit entry reads as a sentence about people and things by name, never their ids.
import { describe, expect, it } from "vitest";
import { AUDIT_ACTION_LABELS, AUDIT_ACTIONS } from "~/audit/audit-actions";
import { describeAuditEntry, type AuditNames, type DescribedEntry } from "~/audit/audit-sentences";

const names: AuditNames = {
  people: { u_ada: "Ada", u_grace: "Grace", u_sam: "Sam" },
  forms: { f_contact: "Contact us" },
  leads: { l_1: "Jo Bloggs" },
  webhooks: { w_1: "https://crm.example/hook" },
  tokens: { t_1: "robot" },
};
const ada = { id: "u_ada", email: "ada@example.com" };

function sentence(action: string, target: string | null = null, details: Record<string, unknown> = {}, actor = ada) {
  return describeAuditEntry({ action, actor, target, details } satisfies DescribedEntry, names);
}

describe("audit sentences", () => {
  it("has a sentence for every action the log records, naming no internal id", () => {
    const targets: Record<string, string> = { user: "user:u_sam", form: "form:f_contact", lead: "lead:l_1" };
    for (const action of AUDIT_ACTIONS) {
      const kind = action.split(".")[0];
      const target =
        targets[kind] ?? (kind === "webhook" ? "webhook:w_1" : kind === "token" ? "token:t_1" : "user:u_ada");
      const text = sentence(action, target);
      expect(text, action).toMatch(/^Ada [a-z]/);
      expect(text, action).not.toContain(action);
      expect(text, action).not.toMatch(/u_|f_|l_1|w_1|t_1/);
    }
  });

  it("names every action in words for the page's filter, each name different", () => {
    const labels = AUDIT_ACTIONS.map((action) => AUDIT_ACTION_LABELS[action]);
    expect(labels.every((label) => /^[A-Z][\w -]+$/.test(label))).toBe(true);
    expect(new Set(labels).size).toBe(AUDIT_ACTIONS.length);
  });

  it("says who exported how many leads of which form, with the count in words", () => {
    const details = { format: "csv", filters: { formId: "f_contact" }, rows: 1204, complete: true };
    expect(sentence("lead.export", null, details)).toBe("Ada exported 1,204 leads of Contact us as CSV.");
    expect(sentence("lead.export", null, { ...details, rows: 1, format: "xlsx" })).toBe(
      "Ada exported 1 lead of Contact us as Excel.",
    );
    expect(sentence("lead.export", null, { ...details, complete: false, rows: 3 })).toBe(
      "Ada stopped a CSV export of leads of Contact us after 3 leads.",
    );
    expect(sentence("lead.export_started", null, { format: "csv", filters: { status: "new" } })).toBe(
      "Ada started a CSV export of leads of all forms (filtered by status).",
    );
  });

  it("names staff changes by the person's name", () => {
    const grace = { id: "u_grace", email: "grace@example.com" };
    const promotion = { email: "sam@example.com", change: { role: "admin" }, previousRole: "agent" };
    expect(sentence("staff.update", "user:u_sam", promotion, grace)).toBe(
      "Grace changed Sam’s role from agent to admin.",
    );
    // Entries written before the previous role was kept.
    expect(sentence("staff.update", "user:u_sam", { change: { role: "admin" } })).toBe(
      "Ada changed Sam’s role to admin.",
    );
    expect(sentence("staff.update", "user:u_gone", { email: "x@example.com", change: { disabled: true } })).toBe(
      "Ada disabled x@example.com.",
    );
    expect(sentence("staff.invite", "user:u_new", { email: "new@example.com", role: "agent" })).toBe(
      "Ada invited new@example.com as agent.",
    );
  });

  it("says someone failed to sign in, with the address typed", () => {
    const failed = describeAuditEntry(
      { action: "session.login_failed", actor: null, target: null, details: { email: "x@y.example" } },
      names,
    );
    expect(failed).toBe("Someone failed to sign in as x@y.example.");
    const typo = describeAuditEntry(
      { action: "session.login_failed", actor: null, target: null, details: { email: "(not an email address)" } },
      names,
    );
    expect(typo).toBe("Someone failed to sign in with something that is not an email address.");
  });

  it("names webhooks by URL, forms and leads by name, and says when they are gone", () => {
    expect(sentence("webhook.create", "webhook:w_2", { url: "https://crm.example/hook", events: [] })).toBe(
      "Ada created the webhook https://crm.example/hook.",
    );
    expect(sentence("webhook.delete", "webhook:w_1")).toBe("Ada deleted the webhook https://crm.example/hook.");
    expect(sentence("webhook.update", "webhook:w_1", { enabled: false })).toBe(
      "Ada paused the webhook https://crm.example/hook.",
    );
    expect(sentence("form.delete", "form:f_gone", { deleteLeads: true })).toBe("Ada deleted a form and its leads.");
    expect(sentence("form.archive", "form:f_gone")).toBe("Ada archived a deleted form.");
    expect(sentence("form.archive", "form:f_contact")).toBe("Ada archived the form Contact us.");
    expect(sentence("lead.delete", "lead:l_1")).toBe("Ada deleted the lead Jo Bloggs.");
    expect(sentence("lead.delete", "lead:l_gone")).toBe("Ada deleted a lead.");
  });

  it("tells bulk changes by what they did and to how many leads", () => {
    expect(sentence("lead.bulk", null, { action: "assign", value: "u_sam", ids: 2, affected: 2 })).toBe(
      "Ada assigned 2 leads to Sam.",
    );
    expect(sentence("lead.bulk", null, { action: "tag", value: "vip", filter: {}, affected: 1 })).toBe(
      "Ada tagged 1 lead “vip”.",
    );
  });

  it("says which support request was merged into which, and what moved", () => {
    expect(sentence("support.merge", "ticket:SR-1001", { into: "SR-1002", messages: 3, notes: 1 })).toBe(
      "Ada merged the support request SR-1001 into SR-1002 (3 messages, 1 note moved).",
    );
  });

  it("falls back to the action's name for an action this version does not know", () => {
    expect(sentence("lead.teleport")).toBe("Ada: lead.teleport.");
  });
});

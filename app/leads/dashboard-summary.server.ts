// The dashboard home's figures: active forms, leads (not spam) and open support requests,
// and how far the getting-started steps are. Each step is done once what it asks for
// exists; a form is on a site once a view of it was counted or a lead came in.
import { db } from "~/storage/db.server";

export type DashboardSummary = {
  forms: number;
  leads: number;
  openTickets: number;
  firstFormId: string | null;
  steps: Record<"form" | "onSite" | "lead", boolean>;
};

export async function dashboardSummary(): Promise<DashboardSummary> {
  const [forms, leads, openTickets, firstForm, viewed] = await Promise.all([
    db.form.count({ where: { status: "active" } }),
    db.lead.count({ where: { isSpam: false } }),
    db.ticket.count({ where: { status: "open" } }),
    db.form.findFirst({ where: { status: "active" }, orderBy: { createdAt: "asc" }, select: { id: true } }),
    db.formView.findFirst({ select: { formId: true } }),
  ]);
  const steps = { form: forms > 0, onSite: viewed !== null || leads > 0, lead: leads > 0 };
  return { forms, leads, openTickets, firstFormId: firstForm?.id ?? null, steps };
}

import { Link, useLoaderData } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { authorize } from "~/staff/auth.server";
import { db } from "~/storage/db.server";
import { plural } from "~/utils/plural";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import type { ReactNode } from "react";

export const meta: MetaFunction = () => [{ title: "Dashboard · Lead Capture" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "leads.read");
  const [forms, leads, openTickets, firstForm, viewed] = await Promise.all([
    db.form.count({ where: { status: "active" } }),
    db.lead.count({ where: { isSpam: false } }),
    db.ticket.count({ where: { status: "open" } }),
    db.form.findFirst({ where: { status: "active" }, orderBy: { createdAt: "asc" }, select: { id: true } }),
    db.formView.findFirst({ select: { formId: true } }),
  ]);
  // Getting started: each step is done once what it asks for exists. A form is on a site
  // once a view of it was counted or a lead came in.
  const steps = { form: forms > 0, onSite: viewed !== null || leads > 0, lead: leads > 0 };
  return { user, forms, leads, openTickets, firstFormId: firstForm?.id ?? null, steps };
}

function Step({ done, children }: { done: boolean; children: ReactNode }) {
  return (
    <li className={done ? "done" : undefined}>
      <span className="step-state">{done ? "Done:" : "To do:"}</span> {children}
    </li>
  );
}

function GettingStarted({
  steps,
  firstFormId,
}: {
  steps: Record<"form" | "onSite" | "lead", boolean>;
  firstFormId: string | null;
}) {
  return (
    <section className="card getting-started" aria-labelledby="getting-started">
      <h2 id="getting-started">Getting started</h2>
      <ol>
        <Step done={steps.form}>
          <Link to="/forms">Create a form</Link> with the fields you want to ask for.
        </Step>
        <Step done={steps.onSite}>
          {firstFormId ? <Link to={`/forms/${firstFormId}/share`}>Put it on your site</Link> : "Put it on your site"}:
          share its link, or paste its embed code into your pages.
        </Step>
        <Step done={steps.lead}>
          <Link to="/leads">See your first lead</Link> as soon as a visitor sends the form.
        </Step>
      </ol>
    </section>
  );
}

export default function DashboardHome() {
  const { user, forms, leads, openTickets, firstFormId, steps } = useLoaderData<typeof loader>();
  const started = steps.form && steps.onSite && steps.lead;
  return (
    <>
      <h1>Welcome, {user.name ?? user.email}</h1>
      {started ? null : <GettingStarted steps={steps} firstFormId={firstFormId} />}
      <div className="row">
        <div className="card">
          <h2>Forms</h2>
          <p>
            <Link to="/forms">{plural(forms, "active form")}</Link>
          </p>
        </div>
        <div className="card">
          <h2>Leads</h2>
          <p>
            <Link to="/leads">{plural(leads, "lead")} collected</Link>
          </p>
        </div>
        <div className="card">
          <h2>Support</h2>
          <p>
            <Link to="/support?status=open">{plural(openTickets, "open request")}</Link>
          </p>
        </div>
      </div>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

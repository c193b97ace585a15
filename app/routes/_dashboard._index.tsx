import { Link, useLoaderData } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { dashboardSummary } from "~/leads/dashboard-summary.server";
import { authorize } from "~/staff/auth.server";
import { plural } from "~/utils/plural";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import type { ReactNode } from "react";

export const meta: MetaFunction = () => [{ title: "Dashboard · Lead Capture" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "leads.read");
  return { user, ...(await dashboardSummary()) };
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

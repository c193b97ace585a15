import { Link, useLoaderData } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { authorize } from "~/utils/auth.server";
import { db } from "~/utils/db.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Dashboard · Lead Capture" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "leads.read");
  const [forms, leads, openTickets] = await Promise.all([
    db.form.count({ where: { status: "active" } }),
    db.lead.count({ where: { isSpam: false } }),
    db.ticket.count({ where: { status: "open" } }),
  ]);
  return { user, forms, leads, openTickets };
}

export default function DashboardHome() {
  const { user, forms, leads, openTickets } = useLoaderData<typeof loader>();
  return (
    <>
      <h1>Welcome, {user.name ?? user.email}</h1>
      <div className="row">
        <div className="card">
          <h2>Forms</h2>
          <p>
            <Link to="/forms">{forms} active</Link>
          </p>
        </div>
        <div className="card">
          <h2>Leads</h2>
          <p>
            <Link to="/leads">{leads} collected</Link>
          </p>
        </div>
        <div className="card">
          <h2>Support</h2>
          <p>
            <Link to="/support?status=open">{openTickets} open requests</Link>
          </p>
        </div>
      </div>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

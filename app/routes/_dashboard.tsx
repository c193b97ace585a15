import { Form, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { RouteError } from "~/components/RouteError";
import { can } from "~/models/policy";
import { requireUser } from "~/utils/auth.server";
import { db } from "~/utils/db.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const { timeZone } = (await db.user.findUnique({ where: { id: user.id }, select: { timeZone: true } })) ?? {};
  // Only which links to show: every page and action checks its own permission.
  return {
    user,
    timeZone: timeZone ?? "UTC",
    managesWebhooks: can(user, "webhooks.manage"),
    readsAudit: can(user, "audit.read"),
  };
}

export default function DashboardLayout() {
  const { user, managesWebhooks, readsAudit } = useLoaderData<typeof loader>();
  return (
    <div className="shell">
      <nav aria-label="Main">
        <a className="brand" href="/">
          Lead Capture
        </a>
        <NavLink to="/forms">Forms</NavLink>
        <NavLink to="/leads">Leads</NavLink>
        <NavLink to="/support">Support</NavLink>
        {managesWebhooks && <NavLink to="/settings/webhooks">Webhooks</NavLink>}
        <NavLink to="/settings/staff">Staff</NavLink>
        {readsAudit && <NavLink to="/settings/audit">Audit</NavLink>}
        <div className="who">
          <NavLink to="/account" className="account">
            {user.email}
          </NavLink>
          <Form method="post" action="/logout">
            <button type="submit" className="link">
              Log out
            </button>
          </Form>
        </div>
      </nav>
      <main>
        <Outlet />
      </main>
    </div>
  );
}

export function ErrorBoundary() {
  return (
    <main className="centered">
      <RouteError />
    </main>
  );
}

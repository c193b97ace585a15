import { Form, NavLink, Outlet, useLoaderData, useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { RouteError } from "~/components/RouteError";
import { requireUser } from "~/staff/auth.server";
import { can } from "~/staff/policy";
import { timeZoneOf } from "~/staff/user.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const timeZone = await timeZoneOf(user.id);
  // Only which links to show: every page and action checks its own permission.
  return {
    user,
    timeZone,
    managesWebhooks: can(user, "webhooks.manage"),
    readsAudit: can(user, "audit.read"),
    managesBrand: can(user, "branding.manage"),
    managesSecurity: can(user, "security.manage"),
    managesPeople: can(user, "people.manage"),
    managesMail: can(user, "mail.manage"),
  };
}

function NavLinks() {
  const { user, managesWebhooks, readsAudit, managesBrand, managesSecurity, managesPeople, managesMail } =
    useLoaderData<typeof loader>();
  const { pathname } = useLocation();
  const inSettings = pathname.startsWith("/settings") || pathname.startsWith("/account");
  return (
    <>
      <NavLink to="/forms">Forms</NavLink>
      <NavLink to="/leads">Leads</NavLink>
      <NavLink to="/people">People</NavLink>
      <NavLink to="/support">Support</NavLink>
      {/* One menu for everything that is not daily work; open while one of its pages is. */}
      <details className="nav-group" open={inSettings}>
        <summary>Settings</summary>
        <NavLink to="/account" end>
          Account
        </NavLink>
        <NavLink to="/account/tokens">API tokens</NavLink>
        <NavLink to="/account/security">Security</NavLink>
        <NavLink to="/settings/staff">Team</NavLink>
        {managesBrand && <NavLink to="/settings/branding">Branding</NavLink>}
        {managesWebhooks && <NavLink to="/settings/webhooks">Webhooks</NavLink>}
        {managesMail && <NavLink to="/settings/mail">Mailbox</NavLink>}
        {readsAudit && <NavLink to="/settings/audit">Audit log</NavLink>}
        {managesSecurity && <NavLink to="/settings/security">Sign-in rules</NavLink>}
        {managesPeople && <NavLink to="/settings/privacy">Privacy requests</NavLink>}
      </details>
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
    </>
  );
}

/**
 * Wide screens get the sidebar; narrow ones a top bar whose menu is a `<details>`, which
 * opens and closes without JavaScript (CSS shows one or the other). With JavaScript the
 * menu closes again after a link in it is followed.
 */
export default function DashboardLayout() {
  const menu = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [location]);
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="/">
          Lead Capture
        </a>
        <details className="menu" ref={menu}>
          <summary>Menu</summary>
          <nav aria-label="Main">
            <NavLinks />
          </nav>
        </details>
      </header>
      <nav aria-label="Main" className="sidebar">
        <a className="brand" href="/">
          Lead Capture
        </a>
        <NavLinks />
      </nav>
      <main id="content" tabIndex={-1}>
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

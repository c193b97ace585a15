// /forms/:id: the form builder's frame. Its sections are pages of their own, each with its
// URL and its action (fields, settings, notifications, share, danger); this route loads the
// form once for all of them and shows its name, counts and the section tabs.
import { Link, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import type { BuilderData } from "~/components/form-builder/shared";
import { getFormWithCounts, formJson } from "~/forms/form.server";
import { authorize } from "~/staff/auth.server";
import { can } from "~/staff/policy";
import { listStaffEmails } from "~/staff/user.server";
import { env } from "~/utils/env.server";
import { page } from "~/utils/http/page.server";
import { plural } from "~/utils/plural";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await authorize(request, "forms.read");
  const [form, staffEmails] = await Promise.all([getFormWithCounts(params.id!), listStaffEmails()]);
  return {
    form: formJson(form),
    appUrl: env.APP_URL,
    staffEmails,
    canDelete: can(user, "forms.delete"),
  } satisfies BuilderData;
});

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.form.name} · Forms · Lead Capture` : "Form · Lead Capture" },
];

const SECTIONS = [
  { path: "fields", label: "Fields" },
  { path: "settings", label: "Settings" },
  { path: "notifications", label: "Notifications" },
  { path: "share", label: "Share" },
  { path: "danger", label: "Danger zone" },
];

export default function FormBuilderLayout() {
  const { form, appUrl } = useLoaderData<typeof loader>();
  const hostedUrl = `${appUrl}/f/${form.id}`;
  return (
    <>
      <p>
        <Link to="/forms">← All forms</Link>
      </p>
      <h1>
        {form.name} <span className={`badge ${form.status}`}>{form.status}</span>
      </h1>
      <p className="muted">
        <Link to={`/leads?formId=${form.id}`}>{plural(form.leadCount ?? 0, "lead")}</Link>
        {form.spamCount ? ` (+${form.spamCount} spam)` : ""} · Hosted form:{" "}
        <a href={hostedUrl} target="_blank" rel="noreferrer">
          {hostedUrl}
        </a>
      </p>
      <nav aria-label="Form sections" className="tabs">
        {SECTIONS.map((section) => (
          <NavLink key={section.path} to={`/forms/${form.id}/${section.path}`}>
            {section.label}
          </NavLink>
        ))}
      </nav>
      <Outlet />
    </>
  );
}

export { BuilderError as ErrorBoundary } from "~/components/form-builder/shared";

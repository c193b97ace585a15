// /settings/staff: the staff with their roles; managers invite, change roles, send an
// invitation again or revoke it, disable (asked first) and enable accounts (plain forms: no
// JavaScript needed; the invitation is validated in the browser with the server's schema
// too, Conform). Every change is checked on the server (app/staff/policy.ts,
// app/staff/staff.server.ts), whatever this page shows.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { InviteForm } from "~/components/staff/InviteForm";
import { DisableQuestion, StaffActions } from "~/components/staff/StaffActions";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { authorize } from "~/staff/auth.server";
import { can, canChangeStaff } from "~/staff/policy";
import { InviteFormSchema } from "~/staff/staff-schemas";
import {
  getStaffMember,
  inviteStaff,
  listStaff,
  resendInvitation,
  revokeInvitation,
  updateStaff,
} from "~/staff/staff.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Staff · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  const user = await authorize(request, "staff.read");
  const staff = (await listStaff()).map((member) => ({
    ...member,
    // Which controls to offer; the action checks again.
    changeable: canChangeStaff(user, member),
    ownerChoice: canChangeStaff(user, member, "owner"),
  }));
  return { staff, manages: can(user, "staff.manage"), me: user.id };
});

type Answer = {
  error?: string;
  done?: string;
  confirmDisable?: { id: string; email: string };
  /** The invitation form's answer (Conform). */
  invited?: SubmissionResult<string[]>;
};
type Audit = ReturnType<typeof auditor>;

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const actor = await authorize(request, "staff.manage");
  const audit = auditor(context, actor);
  const form = await request.formData();
  const id = String(form.get("id") ?? "");
  const intent = String(form.get("intent") ?? "");
  if (intent === "invite") return invite(actor, form, audit);
  if (intent === "resend" || intent === "revoke") return answered(() => invitation(actor, intent, id, audit));
  // Disabling is asked first: a post that does not say it was confirmed changes nothing
  // and answers with the question.
  if (intent === "disable" && form.get("confirmed") !== "yes") {
    return answered(async () => {
      const member = await getStaffMember(id);
      return { confirmDisable: { id: member.id, email: member.email } };
    });
  }
  const change =
    intent === "role"
      ? { role: String(form.get("role") ?? "") }
      : intent === "disable" || intent === "enable"
        ? { disabled: intent === "disable" }
        : null;
  if (!change) throw new Response("Unknown action.", { status: 400 });
  return answered(async () => {
    const { member } = await updateStaff(actor, id, change, audit);
    const what =
      intent === "role" ? `is now ${member.role}` : `is ${member.status === "disabled" ? "disabled" : "enabled"}`;
    return { done: `${member.email} ${what}.` };
  });
});

/** The answer of a change, or the refusal's message (with its status) shown on the page. */
async function answered(change: () => Promise<Answer>) {
  try {
    return data<Answer>(await change());
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const message = thrown.details[0] ? `${thrown.details[0].message}` : thrown.message;
    return data<Answer>({ error: message }, { status: statusOf(thrown) });
  }
}

async function invitation(actor: Parameters<typeof inviteStaff>[0], intent: string, id: string, audit: Audit) {
  if (intent === "resend") {
    const member = await resendInvitation(actor, id, audit);
    return { done: `A new invitation went to ${member.email}: the link sent before no longer works.` };
  }
  const member = await revokeInvitation(actor, id, audit);
  return { done: `The invitation of ${member.email} is revoked.` };
}

async function invite(actor: Parameters<typeof inviteStaff>[0], form: FormData, audit: Audit) {
  // An optional name of spaces is no name.
  form.set("name", String(form.get("name") ?? "").trim());
  const submission = parseWithZod(form, { schema: InviteFormSchema });
  if (submission.status !== "success") return data<Answer>({ invited: submission.reply() }, { status: 422 });
  try {
    const member = await inviteStaff(actor, submission.value, audit);
    return data<Answer>({
      invited: submission.reply({ resetForm: true }),
      done: `Invitation sent to ${member.email}: the link works for 7 days.`,
    });
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const invited = submission.reply({ fieldErrors: fieldErrorsFrom(thrown.details) });
    // A refusal of the whole (an owner invited by an admin, an address taken) is said above the form.
    const error = thrown.details.length > 0 ? undefined : thrown.message;
    return data<Answer>({ invited, error }, { status: statusOf(thrown) });
  }
}

export default function StaffPage() {
  const { staff, manages, me } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  return (
    <>
      <h1>Staff</h1>
      <p className="muted">
        Owners can do everything. Admins can do everything but change owners. Agents work leads and support requests;
        they cannot delete or archive forms, export leads, or manage staff and webhooks.
      </p>
      <ActionNotice done={answer?.done} error={answer?.error} />
      {answer?.confirmDisable ? (
        <section className="card" aria-label="Confirm">
          <DisableQuestion member={answer.confirmDisable} />
          <p>
            <Link to="/settings/staff">Keep them enabled</Link>
          </p>
        </section>
      ) : null}
      {manages ? (
        <InviteForm
          ownerChoice={staff.some((member) => member.id === me && member.role === "owner")}
          lastResult={answer?.invited}
        />
      ) : null}
      <table aria-label="Staff">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Status</th>
            {manages ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {staff.map((member) => (
            <tr key={member.id}>
              <td data-label="Email">
                {member.email}
                {member.id === me ? " (you)" : ""}
              </td>
              <td data-label="Name">{member.name ?? ""}</td>
              <td data-label="Role">{member.role}</td>
              <td data-label="Status">{member.status}</td>
              {manages ? (
                <td data-label="Actions">{member.changeable ? <StaffActions member={member} /> : null}</td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

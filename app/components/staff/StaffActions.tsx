// A staff member's controls on /settings/staff, each a plain form post (no JavaScript
// needed): their role; for someone who has not joined, sending the invitation again or
// revoking it; for someone who has, disabling (asked first) or enabling them.
import { Form } from "@remix-run/react";
import { STAFF_ROLES } from "~/staff/policy";

export type ActionsMember = { id: string; email: string; role: string; status: string; ownerChoice: boolean };

function Post({ member, intent, children }: { member: ActionsMember; intent: string; children: React.ReactNode }) {
  return (
    <Form method="post">
      <input type="hidden" name="id" value={member.id} />
      <input type="hidden" name="intent" value={intent} />
      {children}
    </Form>
  );
}

/**
 * Disabling asks first, as removing a builder field does: the real button is inside a
 * <details>, with or without JavaScript, and carries `confirmed`; a post without it
 * changes nothing and answers with this same question (DisableQuestion).
 */
function ConfirmDisable({ member }: { member: ActionsMember }) {
  return (
    <details className="confirm-remove">
      <summary>Disable…</summary>
      <div className="confirm-panel">
        <DisableQuestion member={member} />
      </div>
    </details>
  );
}

const CONSEQUENCE = "Their sessions and API tokens end at once, and they cannot log in until they are enabled again.";

export function DisableQuestion({ member }: { member: Pick<ActionsMember, "id" | "email"> }) {
  return (
    <>
      <p>{`Disable ${member.email}? ${CONSEQUENCE}`}</p>
      <Form method="post">
        <input type="hidden" name="id" value={member.id} />
        <input type="hidden" name="intent" value="disable" />
        <input type="hidden" name="confirmed" value="yes" />
        <button type="submit" className="danger">
          {`Disable ${member.email}`}
        </button>
      </Form>
    </>
  );
}

function ConfirmRevoke({ member }: { member: ActionsMember }) {
  return (
    <details className="confirm-remove">
      <summary>Revoke…</summary>
      <div className="confirm-panel">
        <p>{`Revoke the invitation of ${member.email}? Their link stops working and the account is removed.`}</p>
        <Post member={member} intent="revoke">
          <button type="submit" className="danger">
            {`Revoke the invitation of ${member.email}`}
          </button>
        </Post>
      </div>
    </details>
  );
}

export function StaffActions({ member }: { member: ActionsMember }) {
  return (
    <div className="actions">
      <Form method="post" aria-label={`Role of ${member.email}`}>
        <input type="hidden" name="id" value={member.id} />
        <input type="hidden" name="intent" value="role" />
        <select name="role" defaultValue={member.role} aria-label={`Role of ${member.email}`}>
          {STAFF_ROLES.filter((role) => role !== "owner" || member.ownerChoice).map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>{" "}
        <button type="submit">Change role</button>
      </Form>
      {member.status === "invited" ? (
        <>
          <Post member={member} intent="resend">
            <button type="submit">{`Resend the invitation to ${member.email}`}</button>
          </Post>
          <ConfirmRevoke member={member} />
        </>
      ) : member.status === "disabled" ? (
        <Post member={member} intent="enable">
          <button type="submit">{`Enable ${member.email}`}</button>
        </Post>
      ) : (
        <ConfirmDisable member={member} />
      )}
    </div>
  );
}

// The staff list and what managers change on it: roles, disabled accounts (docs/api/staff.md).
// Who may do it is app/staff/policy.ts; the rule that there is always an enabled
// owner is kept here, in the transaction of the change.
import { recordAudit, type auditor } from "~/audit/audit.server";
import { db, isUniqueViolation, type Prisma } from "~/storage/db.server";
import { takeLock } from "~/storage/transactions.server";
import { DomainError, invalidFields, parseOrThrow } from "~/utils/domain-error";
import {
  checkLinkBeforeUse,
  readAccountLink,
  sendAccountLink,
  sendLinksNow,
  useAccountLink,
} from "./account-links.server";
import { AcceptInvitationSchema } from "./account-schemas";
import { revokeUserApiTokens } from "./api-tokens.server";
import { canChangeStaff, type Actor, type StaffRole } from "./policy";
import { revokeUserSessions } from "./session.server";
import { InviteSchema, StaffChangeSchema } from "./staff-schemas";
import { hashPassword } from "./user.server";

/** The acting manager's audit recorder: each change below writes its own entry. */
type Audit = ReturnType<typeof auditor>;

export type StaffMember = {
  id: string;
  email: string;
  name: string | null;
  role: StaffRole;
  /** invited: has not accepted the invitation (set a password) yet. */
  status: "active" | "invited" | "disabled";
  createdAt: string;
};

const staffSelect = {
  id: true,
  email: true,
  name: true,
  role: true,
  disabledAt: true,
  createdAt: true,
  passwordHash: true,
} as const;

function memberOf(user: Prisma.UserGetPayload<{ select: typeof staffSelect }>): StaffMember {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    status: user.disabledAt ? "disabled" : user.passwordHash === null ? "invited" : "active",
    createdAt: user.createdAt.toISOString(),
  };
}

export async function listStaff(): Promise<StaffMember[]> {
  const users = await db.user.findMany({ select: staffSelect, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return users.map(memberOf);
}

/** One staff user as listed; 404 for an unknown id. */
export async function getStaffMember(id: string): Promise<StaffMember> {
  const user = await db.user.findUnique({ where: { id }, select: staffSelect });
  if (!user) throw new DomainError("not_found", `No staff user with id ${JSON.stringify(id)}.`);
  return memberOf(user);
}

/**
 * Changes a staff user's role or disables (ending every session at once) or enables them.
 * 403 when the actor may not (only an owner changes an owner or makes one), 404 for an
 * unknown id, 409 when it would leave no enabled owner. `previousRole` is for the audit log
 * ("changed Sam's role from agent to admin"), read in the same transaction as the change.
 * Audited as `staff.update` with the change asked for.
 */
export async function updateStaff(
  actor: Actor,
  id: string,
  input: unknown,
  audit: Audit,
): Promise<{ member: StaffMember; previousRole: StaffRole }> {
  const change = parseOrThrow(StaffChangeSchema, input);
  const updated = await db.$transaction(async (tx) => {
    // Two managers demoting the last two owners at once must not both succeed: on
    // PostgreSQL the changes take one lock in turn (SQLite runs one transaction at a time).
    await takeLock(tx, "staff-owners");
    const target = await tx.user.findUnique({ where: { id }, select: staffSelect });
    if (!target) throw new DomainError("not_found", `No staff user with id ${JSON.stringify(id)}.`);
    if (!canChangeStaff(actor, target, change.role)) {
      throw new DomainError("forbidden", "Only an owner may change an owner or make someone an owner.");
    }
    const user = await tx.user.update({
      where: { id },
      data: {
        ...(change.role && { role: change.role }),
        ...(change.disabled !== undefined && {
          disabledAt: change.disabled ? (target.disabledAt ?? new Date()) : null,
        }),
      },
      select: staffSelect,
    });
    // An owner who can log in: enabled, and past the invitation.
    const owners = await tx.user.count({ where: { role: "owner", disabledAt: null, passwordHash: { not: null } } });
    if (owners === 0) {
      throw new DomainError("conflict", "There must always be an enabled owner: make someone else an owner first.");
    }
    return { user, previousRole: target.role };
  });
  if (updated.user.disabledAt) await Promise.all([revokeUserSessions(id), revokeUserApiTokens(id)]);
  const member = memberOf(updated.user);
  const { previousRole } = updated;
  await audit("staff.update", `user:${member.id}`, { email: member.email, change: input, previousRole });
  return { member, previousRole };
}

/**
 * Invites a new staff user: the account exists at once (status "invited", no password) and
 * an email with a single-use link valid 7 days goes out through the outbox. 403 for an admin
 * inviting an owner, 409 when the address already has an account, 422 for invalid fields.
 * Audited as `staff.invite`.
 */
export async function inviteStaff(
  actor: Actor & { email: string },
  input: unknown,
  audit: Audit,
): Promise<StaffMember> {
  const invite = parseOrThrow(InviteSchema, input);
  if (!canChangeStaff(actor, { role: "agent" }, invite.role)) {
    throw new DomainError("forbidden", "Only an owner may invite an owner.");
  }
  const created = await db
    .$transaction(async (tx) => {
      const existing = await tx.user.findUnique({ where: { email: invite.email }, select: { id: true } });
      if (existing) throw new DomainError("conflict", `${invite.email} already has a staff account.`);
      const user = await tx.user.create({
        data: { email: invite.email, name: invite.name ?? null, role: invite.role, passwordHash: null },
        select: staffSelect,
      });
      await sendAccountLink(tx, user, "invite", actor.email);
      return user;
    })
    .catch((error: unknown) => {
      // Two invitations for one address at once: the second finds the first's account.
      if (isUniqueViolation(error)) throw new DomainError("conflict", `${invite.email} already has a staff account.`);
      throw error;
    });
  sendLinksNow();
  const member = memberOf(created);
  await audit("staff.invite", `user:${member.id}`, { email: member.email, role: member.role });
  return member;
}

/**
 * The invitation of a user who has not joined yet, in a manager's transaction: 404 for an
 * unknown id, 403 when the actor may not change them (an admin and an owner's invitation),
 * 409 when they have joined (set a password) already.
 */
async function pendingInvitee(tx: Prisma.TransactionClient, actor: Actor, id: string, joined: string) {
  const target = await tx.user.findUnique({ where: { id }, select: staffSelect });
  if (!target) throw new DomainError("not_found", `No staff user with id ${JSON.stringify(id)}.`);
  if (!canChangeStaff(actor, target)) {
    throw new DomainError("forbidden", "Only an owner may change an owner or make someone an owner.");
  }
  if (target.passwordHash !== null) throw new DomainError("conflict", `${target.email} has joined already: ${joined}`);
  return target;
}

/**
 * Sends an invitation again: a new link, valid 7 days, by email (through the outbox); the
 * link sent before stops working. 409 for a user who has joined, or is disabled (enable
 * them first: a disabled account's link would not work). Audited as `staff.invite_resend`.
 */
export async function resendInvitation(
  actor: Actor & { email: string },
  id: string,
  audit: Audit,
): Promise<StaffMember> {
  const member = await db.$transaction(async (tx) => {
    const target = await pendingInvitee(tx, actor, id, "there is no invitation to send.");
    if (target.disabledAt) {
      throw new DomainError("conflict", `${target.email} is disabled: enable them first, then send the invitation.`);
    }
    await sendAccountLink(tx, target, "invite", actor.email);
    return memberOf(target);
  });
  sendLinksNow();
  await audit("staff.invite_resend", `user:${member.id}`, { email: member.email });
  return member;
}

/**
 * Revokes the invitation of a user who never joined: their account goes, and with it
 * (cascade) every link sent to them, so no link of theirs works any more. 409 for a user
 * who has joined: they are disabled instead, which keeps what they did attributed to them.
 * Audited as `staff.invite_revoke`.
 */
export async function revokeInvitation(actor: Actor, id: string, audit: Audit): Promise<StaffMember> {
  const member = await db.$transaction(async (tx) => {
    const target = await pendingInvitee(tx, actor, id, "disable them instead.");
    // Only while they still have no password: one who joins at this moment is not removed.
    const removed = await tx.user.deleteMany({ where: { id, passwordHash: null } });
    if (removed.count === 0)
      throw new DomainError("conflict", `${target.email} has joined already: disable them instead.`);
    return memberOf(target);
  });
  await audit("staff.invite_revoke", `user:${member.id}`, { email: member.email, role: member.role });
  return member;
}

/** Who an invitation link is for (410 when it is used, expired or its account disabled). */
export function readInvitation(token: string) {
  return readAccountLink(token, "invite");
}

/**
 * Sets the invited user's name and password and uses the link up; 410 when it no longer
 * works. Audited as `staff.join` and (the caller logs them in) `session.login`.
 */
export async function acceptInvitation(
  token: string,
  input: unknown,
  ip: string,
): Promise<{ id: string; email: string }> {
  const { name, password } = parseOrThrow(AcceptInvitationSchema, input);
  await checkLinkBeforeUse(token, "invite", ip);
  const passwordHash = await hashPassword(password);
  const user = await useAccountLink(token, "invite", (tx, holder) =>
    tx.user.update({ where: { id: holder.userId }, data: { name, passwordHash }, select: { id: true, email: true } }),
  );
  await recordAudit({ action: "staff.join", actor: user, target: `user:${user.id}`, ip });
  await recordAudit({ action: "session.login", actor: user, target: `user:${user.id}`, ip });
  return user;
}

/**
 * An enabled staff user who has joined (an invitation not yet accepted cannot work): the
 * only kind a ticket can be assigned to or a lead given to; validation_failed naming `path`.
 */
export async function workingStaffOrFail(id: string, path: string): Promise<{ id: string }> {
  const user = await db.user.findUnique({ where: { id }, select: { id: true, disabledAt: true, passwordHash: true } });
  if (!user || user.disabledAt || user.passwordHash === null) {
    throw invalidFields([{ path, message: "No enabled staff user has this id." }]);
  }
  return { id: user.id };
}

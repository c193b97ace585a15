// /support/:reference: one support request: its thread a page at a time, the status,
// assignee, reply and note forms (each a post with an `intent`, so all of it works without
// JavaScript). The forms are in app/components/support/, the operations in app/support/.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, type RefObject } from "react";
import { PersonLinkCard } from "~/components/people/FirstTouch";
import { RouteError } from "~/components/RouteError";
import { AssigneeForm, NotesSection } from "~/components/support/DeskPanels";
import { MergedNotice, MergeForm } from "~/components/support/MergeForm";
import { ReplyForm, StatusButtons } from "~/components/support/ThreadForms";
import { deliveryText, ThreadMessage } from "~/components/support/ThreadMessage";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { personLinkFor } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { getSupportDesk, replyOnce, savedReplyText } from "~/support/support-desk.server";
import {
  AssigneeFormSchema,
  MergeFormSchema,
  NoteFormSchema,
  ReplySchema,
  StatusSchema,
} from "~/support/support-schemas";
import { addTicketNote, updateTicket } from "~/support/support.server";
import { mergeTicket } from "~/support/ticket-merge.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.ticket.reference}: ${data.ticket.subject} · Support` : "Support request" },
];

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await authorize(request, "support.read");
  const before = new URL(request.url).searchParams.get("before") ?? undefined;
  const desk = await getSupportDesk(params.reference!, before, user);
  if (!desk) throw new Response("No such support request.", { status: 404 });
  // One address per ticket: ids and other letter cases lead to the reference.
  if (params.reference !== desk.ticket.reference) throw redirect(`/support/${desk.ticket.reference}`);
  return { ...desk, me: user.id, person: await personLinkFor(desk.ticket.email) };
});

type Intent = "reply" | "status" | "assign" | "note" | "merge";
/**
 * The answer to a refused post: which of the page's forms it belongs to, and Conform's reply.
 * `collision`: another agent replied since the page loaded.
 */
type Refusal = {
  intent: Intent;
  result?: SubmissionResult<string[]>;
  collision?: boolean;
  /** A saved reply picked without JavaScript: the reply box's new text. */
  filled?: string;
};
const INTENTS = new Set(["reply", "status", "assign", "note", "merge", "use-saved"]);
const COLLISION = "Another reply was sent after you opened this page. Read it, then send yours again to confirm.";

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await authorize(request, "support.write");
  const form = await request.formData();
  // The reply form's "Use" (a saved reply) is a second intent beside the form's own.
  const intents = form.getAll("intent").map(String);
  const intent = intents.includes("use-saved") ? "use-saved" : (intents[0] ?? "");
  if (!INTENTS.has(intent)) throw new Response("Unknown action.", { status: 400 });
  const reference = params.reference!;
  switch (intent) {
    case "use-saved": {
      const filled = await savedReplyText(reference, form.get("savedReplyId"), user);
      if (filled === null) throw new Response("No such support request or saved reply.", { status: 404 });
      return data<Refusal>({ intent: "reply", filled });
    }
    case "reply": {
      // The schemas the browser already checked with (Conform): the server checks again.
      const submission = parseWithZod(form, { schema: ReplySchema });
      if (submission.status !== "success")
        return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
      const check = { seen: String(form.get("seen") ?? ""), confirmed: form.get("confirm") === "1" };
      const sent = await replyOnce(reference, submission.value.message, check, user);
      if (!sent.collision) return redirect(`/support/${sent.reference}`);
      // Someone answered after this page was loaded: say so rather than answer twice.
      const result = submission.reply({ formErrors: [COLLISION] });
      return data<Refusal>({ intent, result, collision: true }, { status: 409 });
    }
    case "assign": {
      const submission = parseWithZod(form, { schema: AssigneeFormSchema });
      if (submission.status !== "success")
        return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
      try {
        const ticket = await updateTicket(reference, { assigneeId: submission.value.assigneeId ?? null });
        return redirect(`/support/${ticket.reference}`);
      } catch (thrown) {
        // Someone who cannot work it (disabled since the page loaded): said next to the choice.
        if (!(thrown instanceof DomainError) || thrown.code !== "validation_failed") throw thrown;
        const result = submission.reply({ fieldErrors: fieldErrorsFrom(thrown.details) });
        return data<Refusal>({ intent, result }, { status: statusOf(thrown) });
      }
    }
    case "merge": {
      const submission = parseWithZod(form, { schema: MergeFormSchema });
      if (submission.status !== "success")
        return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
      try {
        const merged = await mergeTicket(reference, submission.value.into, { user, ip: clientIp(context) });
        // The thread is in the target now: that is where the agent goes on working.
        return redirect(`/support/${merged.mergedInto}`);
      } catch (thrown) {
        // A refusal about the target (unknown, itself, merged) is said next to the field.
        if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
        const fieldErrors = fieldErrorsFrom(thrown.details);
        const result = submission.reply(thrown.details.length ? { fieldErrors } : { formErrors: [thrown.message] });
        return data<Refusal>({ intent, result }, { status: statusOf(thrown) });
      }
    }
    case "note": {
      const submission = parseWithZod(form, { schema: NoteFormSchema });
      if (submission.status !== "success")
        return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
      await addTicketNote(reference, submission.value.body, user);
      return redirect(`/support/${reference}`);
    }
    default: {
      const submission = parseWithZod(form, { schema: StatusSchema });
      if (submission.status !== "success")
        return data<Refusal>({ intent: "status", result: submission.reply() }, { status: 422 });
      const ticket = await updateTicket(reference, { status: submission.value.status });
      return redirect(`/support/${ticket.reference}`);
    }
  }
});

export default function SupportThread() {
  const { ticket, staff, me, savedReplies, mergeInto, person } = useLoaderData<typeof loader>();
  const refusal = useActionData<typeof action>() as Refusal | undefined;
  const navigation = useNavigation();
  const busyIntent = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  const replyForm = useRef<HTMLFormElement>(null);
  const wasReplying = useRef(false);
  useEffect(() => {
    // Empty the reply box once a sent reply has come back as part of the thread.
    if (busyIntent === "reply") wasReplying.current = true;
    else if (navigation.state === "idle" && wasReplying.current) {
      wasReplying.current = false;
      if (refusal?.intent !== "reply") replyForm.current?.reset();
    }
  }, [busyIntent, navigation.state, refusal]);
  const acknowledgement = ticket.emails.find((email) => email.kind === "acknowledgement");

  return (
    <>
      <p>
        <Link to="/support">← Support requests</Link>
      </p>
      <h1>
        {ticket.reference}: {ticket.subject}
      </h1>
      <p>
        <span className={`badge ${ticket.status}`} data-testid="ticket-status">
          {ticket.status}
        </span>{" "}
        {ticket.spam ? <span className="badge spam">spam</span> : null} from {ticket.name ? `${ticket.name} ` : null}
        <a href={`mailto:${ticket.email}`}>{ticket.email}</a>
        {acknowledgement ? <span className="muted"> · Acknowledgement: {deliveryText(acknowledgement)}</span> : null}
      </p>
      {ticket.mergedInto ? <MergedNotice into={ticket.mergedInto} /> : null}

      <StatusButtons
        status={ticket.status}
        busy={busyIntent === "status"}
        lastResult={refusal?.intent === "status" ? refusal.result : undefined}
      />
      <AssigneeForm
        assignee={ticket.assignee}
        staff={staff}
        me={me}
        busy={busyIntent === "assign"}
        lastResult={refusal?.intent === "assign" ? refusal.result : undefined}
      />

      <h2>Conversation</h2>
      {ticket.earlier ? (
        <p>
          <Link to={`?before=${encodeURIComponent(ticket.earlier)}`}>Earlier messages</Link>
        </p>
      ) : null}
      <ol className="thread" aria-label="Messages">
        {ticket.messages.map((message) => (
          <ThreadMessage key={message.id} message={message} />
        ))}
      </ol>
      {ticket.newestMessageId !== ticket.messages.at(-1)?.id ? (
        <p>
          <Link to=".">Newest messages</Link>
        </p>
      ) : null}

      {ticket.mergedInto ? null : (
        <OpenTicketForms
          ticket={ticket}
          savedReplies={savedReplies}
          mergeInto={mergeInto}
          refusal={refusal}
          busyIntent={busyIntent}
          replyForm={replyForm}
        />
      )}
      <PersonLinkCard person={person} />
    </>
  );
}

type Desk = ReturnType<typeof useLoaderData<typeof loader>>;

/** What staff do on a ticket that was not merged away: reply, note, merge. */
function OpenTicketForms({
  ticket,
  savedReplies,
  mergeInto,
  refusal,
  busyIntent,
  replyForm,
}: Pick<Desk, "ticket" | "savedReplies" | "mergeInto"> & {
  refusal: Refusal | undefined;
  busyIntent: unknown;
  replyForm: RefObject<HTMLFormElement>;
}) {
  return (
    <>
      <h2>Reply</h2>
      <ReplyForm
        formRef={replyForm}
        email={ticket.email}
        seen={ticket.newestMessageId}
        confirming={refusal?.intent === "reply" && refusal.collision === true}
        savedReplies={savedReplies}
        filled={refusal?.filled}
        busy={busyIntent === "reply"}
        lastResult={refusal?.intent === "reply" ? refusal.result : undefined}
      />

      <NotesSection
        notes={ticket.notes}
        busy={busyIntent === "note"}
        lastResult={refusal?.intent === "note" ? refusal.result : undefined}
      />
      <MergeForm
        reference={ticket.reference}
        candidates={mergeInto}
        busy={busyIntent === "merge"}
        lastResult={refusal?.intent === "merge" ? refusal.result : undefined}
      />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no support request with this reference." />;
}

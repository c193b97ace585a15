import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, type RefObject } from "react";
import { RouteError } from "~/components/RouteError";
import { AssigneeForm, NotesSection } from "~/components/support/DeskPanels";
import { deliveryText, ThreadMessage } from "~/components/support/ThreadMessage";
import { authorize } from "~/staff/auth.server";
import { listStaff } from "~/staff/staff.server";
import { fillSavedReply, listSavedReplies, type ReplyContext } from "~/support/saved-replies.server";
import { NoteSchema, ReplySchema, StatusSchema } from "~/support/support-schemas";
import { addStaffReply, addTicketNote, getThreadPage, repliedSince, updateTicket } from "~/support/support.server";
import { TICKET_STATUSES } from "~/support/ticket-status";
import { page } from "~/utils/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.ticket.reference}: ${data.ticket.subject} · Support` : "Support request" },
];

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await authorize(request, "support.read");
  const before = new URL(request.url).searchParams.get("before") ?? undefined;
  const ticket = await getThreadPage(params.reference!, before);
  if (!ticket) throw new Response("No such support request.", { status: 404 });
  // One address per ticket: ids and other letter cases lead to the reference.
  if (params.reference !== ticket.reference) throw redirect(`/support/${ticket.reference}`);
  const [members, replies] = await Promise.all([listStaff(), listSavedReplies()]);
  const staff = members.filter((member) => member.status === "active");
  const context = replyContext(ticket, user);
  const savedReplies = replies.map(({ id, name, body }) => ({ id, name, text: fillSavedReply(body, context) }));
  return { ticket, staff, me: user.id, savedReplies };
});

function replyContext(
  ticket: { name: string | null; email: string; reference: string; subject: string },
  agent: { name: string | null; email: string },
): ReplyContext {
  return {
    customer: { name: ticket.name, email: ticket.email },
    ticket: { reference: ticket.reference, subject: ticket.subject },
    agent: { name: agent.name, email: agent.email },
  };
}

type Intent = "reply" | "status" | "assign" | "note";
/**
 * The answer to a refused post: which of the page's forms it belongs to, and Conform's reply
 * (or, for a note, the message). `collision`: another agent replied since the page loaded.
 */
type Refusal = {
  intent: Intent;
  result?: SubmissionResult<string[]>;
  error?: string;
  collision?: boolean;
  /** A saved reply picked without JavaScript: the reply box's new text. */
  filled?: string;
};
const INTENTS = new Set(["reply", "status", "assign", "note", "use-saved"]);

export const action = page(async function action({ request, params }: ActionFunctionArgs) {
  const user = await authorize(request, "support.write");
  const form = await request.formData();
  // The reply form's "Use" (a saved reply) is a second intent beside the form's own.
  const intents = form.getAll("intent").map(String);
  const intent = (intents.includes("use-saved") ? "use-saved" : (intents[0] ?? "")) as Intent;
  if (!INTENTS.has(intent)) throw new Response("Unknown action.", { status: 400 });
  const reference = params.reference!;
  if (intent === ("use-saved" as Intent)) {
    const [ticket, replies] = await Promise.all([getThreadPage(reference), listSavedReplies()]);
    const saved = replies.find((reply) => reply.id === form.get("savedReplyId"));
    if (!ticket || !saved) throw new Response("No such support request or saved reply.", { status: 404 });
    return data<Refusal>({ intent: "reply", filled: fillSavedReply(saved.body, replyContext(ticket, user)) });
  }
  // The schemas the browser already checked with (Conform): the server checks again.
  if (intent === "reply") {
    const submission = parseWithZod(form, { schema: ReplySchema });
    if (submission.status !== "success") {
      return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
    }
    // Someone answered after this page was loaded: say so rather than answer twice.
    if (form.get("confirm") !== "1" && (await repliedSince(reference, String(form.get("seen") ?? ""), user.id))) {
      const message = "Another reply was sent after you opened this page. Read it, then send yours again to confirm.";
      return data<Refusal>(
        { intent, result: submission.reply({ formErrors: [message] }), collision: true },
        { status: 409 },
      );
    }
    const { ticket } = await addStaffReply(reference, submission.value.message, { author: "staff", user });
    return redirect(`/support/${ticket.reference}`);
  }
  if (intent === "assign") {
    const assigneeId = String(form.get("assigneeId") ?? "");
    const ticket = await updateTicket(reference, { assigneeId: assigneeId || null });
    return redirect(`/support/${ticket.reference}`);
  }
  if (intent === "note") {
    const parsed = NoteSchema.safeParse({ body: form.get("body") ?? "" });
    if (!parsed.success) return data<Refusal>({ intent, error: parsed.error.issues[0].message }, { status: 422 });
    await addTicketNote(reference, parsed.data.body, user);
    return redirect(`/support/${reference}`);
  }
  const submission = parseWithZod(form, { schema: StatusSchema });
  if (submission.status !== "success") {
    return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
  }
  const ticket = await updateTicket(params.reference!, { status: submission.value.status });
  return redirect(`/support/${ticket.reference}`);
});

export default function SupportThread() {
  const { ticket, staff, me, savedReplies } = useLoaderData<typeof loader>();
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
        from {ticket.name ? `${ticket.name} ` : null}
        <a href={`mailto:${ticket.email}`}>{ticket.email}</a>
        {acknowledgement ? <span className="muted"> · Acknowledgement: {deliveryText(acknowledgement)}</span> : null}
      </p>

      <StatusButtons
        status={ticket.status}
        busy={busyIntent === "status"}
        lastResult={refusal?.intent === "status" ? refusal.result : undefined}
      />
      <AssigneeForm assignee={ticket.assignee} staff={staff} me={me} busy={busyIntent === "assign"} />

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
        error={refusal?.intent === "note" ? refusal.error : undefined}
      />
    </>
  );
}

/** One button per status the request can move to. */
function StatusButtons({
  status,
  busy,
  lastResult,
}: {
  status: string;
  busy: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "status",
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: StatusSchema }),
  });
  const error = fields.status.errors?.[0] ?? form.errors?.[0];
  return (
    <Form method="post" className="actions" aria-label="Status" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="status" />
      {TICKET_STATUSES.filter((next) => next !== status).map((next) => (
        <button key={next} type="submit" name="status" value={next} className="secondary" disabled={busy}>
          {next === "open" ? "Reopen" : next === "pending" ? "Mark pending" : "Close"}
        </button>
      ))}
      {error ? (
        <span className="error" role="alert">
          {error}
        </span>
      ) : null}
    </Form>
  );
}

/** The reply form, validated in the browser with the schema the server uses. */
function ReplyForm({
  formRef,
  email,
  seen,
  confirming,
  savedReplies,
  filled,
  busy,
  lastResult,
}: {
  /** The page empties the form through this once the reply is in the thread. */
  formRef: RefObject<HTMLFormElement>;
  email: string;
  /** The newest message when the page was loaded: a reply sent since asks for confirmation. */
  seen: string;
  confirming: boolean;
  savedReplies: Array<{ id: string; name: string; text: string }>;
  filled?: string;
  busy: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  // Checked as soon as the box is left; without JavaScript the form posts and the
  // server's answer shows the same message.
  const [form, fields] = useForm({
    id: "reply",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ReplySchema }),
  });
  const error = fields.message.errors?.[0];
  const formError = form.errors?.[0];
  return (
    <Form method="post" ref={formRef} {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="reply" />
      <input type="hidden" name="seen" value={seen} />
      {confirming ? <input type="hidden" name="confirm" value="1" /> : null}
      {formError ? (
        <p className="notice warn" role="alert">
          {formError}
        </p>
      ) : null}
      {savedReplies.length > 0 ? <SavedReplyPicker replies={savedReplies} formRef={formRef} /> : null}
      <label htmlFor="message">Message to {email}</label>
      <textarea
        id="message"
        name="message"
        rows={6}
        required
        key={filled ?? "reply"}
        defaultValue={
          filled ?? (typeof fields.message.initialValue === "string" ? fields.message.initialValue : undefined)
        }
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "reply-error" : undefined}
      />
      {error ? (
        <p id="reply-error" className="error" role="alert">
          {error}
        </p>
      ) : null}
      <p className="muted">Sending sets the request to pending (waiting on the customer).</p>
      <p>
        <button type="submit" disabled={busy}>
          {busy ? "Sending…" : confirming ? "Send anyway" : "Send reply"}
        </button>
      </p>
    </Form>
  );
}

/**
 * Picks a saved reply: with JavaScript the text fills the box in place; without, **Use**
 * posts the choice and the page comes back with the text in the box.
 */
function SavedReplyPicker({
  replies,
  formRef,
}: {
  replies: Array<{ id: string; name: string; text: string }>;
  formRef: RefObject<HTMLFormElement>;
}) {
  return (
    <p className="actions">
      <label htmlFor="savedReplyId">Saved reply</label>{" "}
      <select
        id="savedReplyId"
        name="savedReplyId"
        defaultValue=""
        onChange={(event) => {
          const picked = replies.find((reply) => reply.id === event.currentTarget.value);
          const box = formRef.current?.elements.namedItem("message");
          if (picked && box instanceof HTMLTextAreaElement) box.value = picked.text;
        }}
      >
        <option value="">Choose…</option>
        {replies.map((reply) => (
          <option key={reply.id} value={reply.id}>
            {reply.name}
          </option>
        ))}
      </select>{" "}
      <button type="submit" name="intent" value="use-saved" className="secondary" formNoValidate>
        Use
      </button>
    </p>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no support request with this reference." />;
}

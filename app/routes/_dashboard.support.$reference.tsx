import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, type RefObject } from "react";
import { RouteError } from "~/components/RouteError";
import { ReplySchema, StatusSchema } from "~/models/support-schemas";
import { addStaffReply, getTicketThread, setTicketStatus } from "~/models/support.server";
import { TICKET_STATUSES } from "~/models/ticket-status";
import { authorize } from "~/utils/auth.server";
import { page } from "~/utils/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction, SerializeFrom } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.ticket.reference}: ${data.ticket.subject} · Support` : "Support request" },
];

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "support.read");
  const ticket = await getTicketThread(params.reference!);
  if (!ticket) throw new Response("No such support request.", { status: 404 });
  // One address per ticket: ids and other letter cases lead to the reference.
  if (params.reference !== ticket.reference) throw redirect(`/support/${ticket.reference}`);
  return { ticket };
});

type Intent = "reply" | "status";
/** The answer to a refused post: which of the page's two forms it belongs to, and Conform's reply. */
type Refusal = { intent: Intent; result: SubmissionResult<string[]> };

export const action = page(async function action({ request, params }: ActionFunctionArgs) {
  const user = await authorize(request, "support.write");
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent !== "reply" && intent !== "status") throw new Response("Unknown action.", { status: 400 });
  // The schemas the browser already checked with (Conform): the server checks again.
  if (intent === "reply") {
    const submission = parseWithZod(form, { schema: ReplySchema });
    if (submission.status !== "success") {
      return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
    }
    const { ticket } = await addStaffReply(params.reference!, submission.value.message, { author: "staff", user });
    return redirect(`/support/${ticket.reference}`);
  }
  const submission = parseWithZod(form, { schema: StatusSchema });
  if (submission.status !== "success") {
    return data<Refusal>({ intent, result: submission.reply() }, { status: 422 });
  }
  const ticket = await setTicketStatus(params.reference!, submission.value.status);
  return redirect(`/support/${ticket.reference}`);
});

const SIZE = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${SIZE.format(bytes / 1024)} KB`;
  return `${SIZE.format(bytes / 1024 / 1024)} MB`;
}

type Delivery = { status: string; attempts: number; lastError: string | null; sentAt: Date | null };

function deliveryText(delivery: Delivery): string {
  switch (delivery.status) {
    case "sent":
      return `Email sent${delivery.sentAt ? ` ${delivery.sentAt.toUTCString()}` : ""}`;
    case "not_configured":
      return delivery.lastError ?? "not sent: no SMTP configured";
    case "failed":
      return `Email failed after ${delivery.attempts} attempts: ${delivery.lastError ?? "unknown error"}`;
    default:
      return delivery.attempts > 0
        ? `Email not sent yet (attempt ${delivery.attempts} failed: ${delivery.lastError ?? "unknown error"}); retrying`
        : "Email queued";
  }
}

export default function SupportThread() {
  const { ticket } = useLoaderData<typeof loader>();
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

      <h2>Conversation</h2>
      <ol className="thread" aria-label="Messages">
        {ticket.messages.map((message) => (
          <ThreadMessage key={message.id} message={message} />
        ))}
      </ol>

      <h2>Reply</h2>
      <ReplyForm
        formRef={replyForm}
        email={ticket.email}
        busy={busyIntent === "reply"}
        lastResult={refusal?.intent === "reply" ? refusal.result : undefined}
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

type Message = SerializeFrom<typeof loader>["ticket"]["messages"][number];

function authorName(message: Message): string {
  if (message.author === "api") return "Staff (API)";
  if (message.author === "staff") {
    return `Staff: ${message.authorUser?.name ?? message.authorUser?.email ?? message.fromEmail}`;
  }
  return `Customer: ${message.fromEmail}`;
}

function ThreadMessage({ message }: { message: Message }) {
  const fromStaff = message.author !== "customer";
  return (
    <li
      className={`card message ${fromStaff ? "from-staff" : "from-customer"}`}
      data-author={message.author}
      data-testid="message"
    >
      <p>
        <strong>{authorName(message)}</strong>{" "}
        {message.unverifiedSender ? (
          <span
            className="badge unverified"
            title="Nothing shows this came from the requester: it did not answer our email or reply address, and the mail provider did not vouch for the sender. It changed no status."
          >
            Unverified sender
          </span>
        ) : null}{" "}
        {message.isAutoReply ? <span className="badge">Auto-reply</span> : null}{" "}
        <span className="muted">
          {message.direction === "inbound" ? "received" : "sent"}{" "}
          <time dateTime={message.createdAt.toISOString()}>{message.createdAt.toUTCString()}</time>
        </span>
      </p>
      <pre>{message.body}</pre>
      {message.attachments.length > 0 ? <AttachmentList attachments={message.attachments} /> : null}
      {message.notKept.map((line) => (
        <p key={line} className="notice warn" data-testid="not-kept">
          {line}
        </p>
      ))}
      {message.hasQuotedText ? (
        <details>
          <summary>Show the full email (quoted text)</summary>
          <pre>{message.fullBody}</pre>
        </details>
      ) : null}
      {message.delivery ? (
        <p className={message.delivery.status === "sent" ? "muted" : "notice warn"} data-testid="delivery">
          {deliveryText(message.delivery)}
        </p>
      ) : null}
    </li>
  );
}

function AttachmentList({ attachments }: { attachments: Message["attachments"] }) {
  return (
    <ul className="attachments" aria-label="Attachments" data-testid="attachments">
      {attachments.map((file) => (
        <li key={file.id}>
          <a href={file.url} download={file.filename}>
            {file.filename}
          </a>{" "}
          <span className="muted">
            ({file.contentType}, {formatSize(file.size)})
          </span>
        </li>
      ))}
    </ul>
  );
}

/** The reply form, validated in the browser with the schema the server uses. */
function ReplyForm({
  formRef,
  email,
  busy,
  lastResult,
}: {
  /** The page empties the form through this once the reply is in the thread. */
  formRef: RefObject<HTMLFormElement>;
  email: string;
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
  return (
    <Form method="post" ref={formRef} {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="reply" />
      <label htmlFor="message">Message to {email}</label>
      <textarea
        id="message"
        name="message"
        rows={6}
        required
        defaultValue={typeof fields.message.initialValue === "string" ? fields.message.initialValue : undefined}
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
          {busy ? "Sending…" : "Send reply"}
        </button>
      </p>
    </Form>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no support request with this reference." />;
}

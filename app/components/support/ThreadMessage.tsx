// One message of a support thread as the ticket page shows it: who wrote it, its text (the
// first part of a long one, with the whole a download away), its attachments, what of it
// was not kept, and the delivery of the email it became.
import { LocalTime } from "~/components/LocalTime";
import type { ThreadPage } from "~/support/support-thread-page.server";
import { plural } from "~/utils/plural";
import type { SerializeFrom } from "@remix-run/node";
import type { ReactNode } from "react";

const SIZE = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${SIZE.format(bytes / 1024)} KB`;
  return `${SIZE.format(bytes / 1024 / 1024)} MB`;
}

type Delivery = { status: string; attempts: number; lastError: string | null; sentAt: Date | null };

export function deliveryText(delivery: Delivery): ReactNode {
  switch (delivery.status) {
    case "sent":
      return delivery.sentAt ? (
        <>
          Email sent <LocalTime iso={delivery.sentAt} />
        </>
      ) : (
        "Email sent"
      );
    case "not_configured":
      return delivery.lastError ?? "not sent: no SMTP configured";
    case "failed":
      return `Email failed after ${plural(delivery.attempts, "attempt")}: ${delivery.lastError ?? "unknown error"}`;
    default:
      return delivery.attempts > 0
        ? `Email not sent yet (attempt ${delivery.attempts} failed: ${delivery.lastError ?? "unknown error"}); retrying`
        : "Email queued";
  }
}

type Message = SerializeFrom<ThreadPage["messages"][number]>;

function authorName(message: Message): string {
  if (message.author === "api") return "Staff (API)";
  if (message.author === "staff") {
    return `Staff: ${message.authorUser?.name ?? message.authorUser?.email ?? message.fromEmail}`;
  }
  return `Customer: ${message.fromEmail}`;
}

export function ThreadMessage({ message }: { message: Message }) {
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
          {message.direction === "inbound" ? "received" : "sent"} <LocalTime iso={message.createdAt} />
        </span>
      </p>
      <div className="message-body">{message.body}</div>
      {message.cut ? <CutNotice message={message} /> : null}
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

/** Says that a long message is shown in part, and where its whole text is. */
function CutNotice({ message }: { message: Message }) {
  return (
    <p className="notice" data-testid="cut">
      Long message: only its beginning is shown here.{" "}
      <a href={message.textUrl} download>
        Download the full text
      </a>{" "}
      <span className="muted">({formatSize(message.fullBytes)})</span>
    </p>
  );
}

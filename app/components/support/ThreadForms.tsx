// The support thread page's own forms (app/routes/_dashboard.support.$reference.tsx): the
// status buttons, and the reply box with its saved-reply picker. Both are Conform forms
// checked in the browser with the schemas the action checks again; both post without
// JavaScript.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { ReplySchema, StatusSchema } from "~/support/support-schemas";
import { TICKET_STATUSES } from "~/support/ticket-status";
import type { RefObject } from "react";

/** One button per status the request can move to. */
export function StatusButtons({
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
export function ReplyForm({
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

// The support desk's side panels on a ticket page: who works it (assignee) and the staff's
// notes, kept apart from the conversation and never emailed. Plain forms: no JavaScript needed
// (both are checked in the browser too, with the schemas the action uses: Conform).
import { getFormProps, getTextareaProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import { AssigneeFormSchema, NoteFormSchema } from "~/support/support-schemas";

type Person = { id: string; email: string; name: string | null };

export function AssigneeForm({
  assignee,
  staff,
  me,
  busy,
  lastResult,
}: {
  assignee: Person | null;
  staff: Person[];
  me: string;
  busy: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "assignee",
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: AssigneeFormSchema }),
  });
  const error = fields.assigneeId.errors?.[0];
  const chosen = fields.assigneeId.initialValue;
  // After a refusal the choice that was refused stays selected; otherwise the assignee.
  const selected = lastResult && typeof chosen === "string" ? chosen : (assignee?.id ?? "");
  return (
    <Form method="post" className="actions" aria-label="Assignee" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="assign" />
      <label htmlFor="assigneeId">Assigned to</label>{" "}
      <select
        id="assigneeId"
        name="assigneeId"
        defaultValue={selected}
        key={`${assignee?.id ?? "nobody"}-${fields.assigneeId.key ?? ""}`}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "assignee-error" : undefined}
      >
        <option value="">Nobody</option>
        {staff.map((person) => (
          <option key={person.id} value={person.id}>
            {person.name ? `${person.name} (${person.email})` : person.email}
            {person.id === me ? " (you)" : ""}
          </option>
        ))}
      </select>{" "}
      <button type="submit" className="secondary" disabled={busy}>
        Assign
      </button>
      {error ? (
        <span id="assignee-error" className="error" role="alert">
          {error}
        </span>
      ) : null}
    </Form>
  );
}

type Note = { id: string; body: string; createdAt: Date | string; authorUser: Person | null };

export function NotesSection({
  notes,
  lastResult,
  busy,
}: {
  notes: Note[];
  lastResult: SubmissionResult<string[]> | undefined;
  busy: boolean;
}) {
  const [form, fields] = useForm({
    id: "note",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NoteFormSchema }),
  });
  const error = fields.body.errors?.[0];
  return (
    <section className="card notes" aria-labelledby="notes-heading">
      <h2 id="notes-heading">Internal notes</h2>
      <p className="muted">Only staff see these; they are never emailed.</p>
      {notes.length > 0 ? (
        <ol aria-label="Notes">
          {notes.map((note) => (
            <li key={note.id} data-testid="note">
              <p>
                <strong>{note.authorUser?.name ?? note.authorUser?.email ?? "Staff (API)"}</strong>{" "}
                <span className="muted">
                  <LocalTime iso={note.createdAt} />
                </span>
              </p>
              <div className="message-body">{note.body}</div>
            </li>
          ))}
        </ol>
      ) : null}
      <Form method="post" aria-label="Add a note" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="note" />
        <label htmlFor="note-body">New note</label>
        <textarea
          {...getTextareaProps(fields.body, { ariaAttributes: false })}
          id="note-body"
          rows={3}
          required
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "note-error" : undefined}
        />
        {error ? (
          <p id="note-error" className="error" role="alert">
            {error}
          </p>
        ) : null}
        <p>
          <button type="submit" className="secondary" disabled={busy}>
            Add note
          </button>
        </p>
      </Form>
    </section>
  );
}

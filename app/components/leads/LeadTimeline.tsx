// A lead's timeline, oldest first: staff notes and every change of status, owner and tags,
// with who made it and when (in the staff user's time zone), and the form that adds a note.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import { LeadNoteFormSchema } from "~/leads/lead-schemas";
import { personName, STATUS_LABELS } from "./LeadWorkForm";

type Person = { id: string; name: string | null; email: string };
export type Entry = {
  id: string;
  kind: "note" | "status" | "owner" | "tags";
  body: string | null;
  from: string | null;
  to: string | null;
  actor: Person | null;
  createdAt: string;
};

/** A user removed since is "a former user" (their entries stay, without them). */
const FORMER = "a former user";

function what(entry: Entry, nameOf: (id: string) => string): string {
  const status = (value: string | null) => STATUS_LABELS[value ?? ""] ?? value ?? "—";
  switch (entry.kind) {
    case "note":
      return "added a note";
    case "status":
      if (entry.to === "spam") return "marked it as spam";
      if (entry.from === "spam") return `marked it not spam (${status(entry.to)})`;
      return `changed the status from ${status(entry.from)} to ${status(entry.to)}`;
    case "owner":
      if (!entry.to) return `took it from ${nameOf(entry.from ?? "")}: nobody owns it`;
      return entry.from
        ? `gave it to ${nameOf(entry.to)} (was ${nameOf(entry.from)})`
        : `gave it to ${nameOf(entry.to)}`;
    case "tags": {
      const parts = [entry.to && `tagged it ${entry.to}`, entry.from && `removed the tags ${entry.from}`];
      return parts.filter(Boolean).join(" and ") || "changed the tags";
    }
  }
}

export function LeadTimeline({ timeline, people }: { timeline: Entry[]; people: Person[] }) {
  const names = new Map(people.map((person) => [person.id, personName(person)]));
  const nameOf = (id: string) => names.get(id) ?? FORMER;
  if (timeline.length === 0) return <p className="muted">No notes or changes yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {timeline.map((entry) => (
        <li key={entry.id} data-testid="timeline-entry" data-kind={entry.kind}>
          <p>
            <strong>{entry.actor ? personName(entry.actor) : capitalized(FORMER)}</strong> {what(entry, nameOf)}{" "}
            <span className="muted">
              <LocalTime iso={entry.createdAt} />
            </span>
          </p>
          {entry.kind === "note" && entry.body ? <p className="note-body">{entry.body}</p> : null}
        </li>
      ))}
    </ol>
  );
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function NoteForm({
  maxLength,
  busy,
  lastResult,
}: {
  maxLength: number;
  busy: boolean;
  /** A refused note: its message, and its text to correct. */
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  // Checked in the browser with the schema the action parses with (Conform, decision 022).
  const [form, fields] = useForm({
    id: "lead-note",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LeadNoteFormSchema }),
  });
  const error = fields.body.errors?.[0];
  const value = fields.body.initialValue;
  return (
    <Form method="post" aria-label="Add a note" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="note" />
      <label htmlFor="note-body">New note</label>
      <textarea
        id="note-body"
        name="body"
        rows={3}
        required
        maxLength={maxLength}
        defaultValue={typeof value === "string" ? value : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "note-error" : undefined}
      />
      {error ? (
        <p id="note-error" className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <p className="muted">Only staff see notes.</p>
      <p>
        <button type="submit" className="secondary" disabled={busy}>
          {busy ? "Adding…" : "Add note"}
        </button>
      </p>
    </Form>
  );
}

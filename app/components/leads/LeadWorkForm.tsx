// Working a lead: its status, owner and tags, saved together by one plain form post
// (intent=update). A spam lead says so and offers "Not spam", which puts it back at the
// stage it had. Each input's refusal shows next to it: checked in the browser with the
// schema the action parses with (Conform, decision 022), and said again by the server.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form } from "@remix-run/react";
import { LeadWorkFormSchema } from "~/leads/lead-schemas";

type Person = { id: string; name: string | null; email: string };

export const STATUS_LABELS: Record<string, string> = {
  new: "New",
  contacted: "Contacted",
  qualified: "Qualified",
  won: "Won",
  lost: "Lost",
  spam: "Spam",
};

export const personName = (person: Person) => person.name || person.email;

export function LeadWorkForm({
  lead,
  owners,
  statuses,
  suggestions,
  maxTags,
  busy,
  lastResult,
}: {
  lead: { status: string; stage: string; isSpam: boolean; owner: Person | null; tags: string[] };
  /** Who may own a lead: enabled staff who have joined. */
  owners: Person[];
  statuses: readonly string[];
  suggestions: string[];
  maxTags: number;
  busy: boolean;
  /** A refused post: the messages by input, and what it sent, shown again to be corrected. */
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "lead-work",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LeadWorkFormSchema }),
  });
  const errors = {
    status: fields.status.errors?.[0],
    ownerId: fields.ownerId.errors?.[0],
    tags: fields.tags.errors?.[0],
  };
  const sent = lastResult?.initialValue as Partial<Record<"status" | "ownerId" | "tags", string>> | undefined;
  const tags = lead.tags.join(", ");
  const owner = lead.owner?.id ?? "";
  // A disabled owner stays chosen (and is not sent again unless changed).
  const choices = lead.owner && !owners.some((person) => person.id === owner) ? [...owners, lead.owner] : owners;
  return (
    <section className="card" aria-labelledby="work-heading">
      <h2 id="work-heading">Work this lead</h2>
      {lead.isSpam ? <SpamNotice stage={lead.stage} busy={busy} /> : null}
      <Form
        method="post"
        aria-label="Status, owner and tags"
        key={JSON.stringify([lead.status, owner, tags, sent])}
        {...getFormProps(form)}
      >
        <input type="hidden" name="intent" value="update" />
        {/* What the page showed: the server changes only what was changed here, so two
            people working the same lead do not undo each other's other changes. */}
        <input type="hidden" name="statusWas" value={lead.status} />
        <input type="hidden" name="ownerIdWas" value={owner} />
        <input type="hidden" name="tagsWas" value={tags} />
        <div className="row">
          <StatusSelect statuses={statuses} defaultValue={sent?.status ?? lead.status} error={errors.status} />
          <OwnerSelect choices={choices} defaultValue={sent ? (sent.ownerId ?? "") : owner} error={errors.ownerId} />
          <TagsInput
            value={sent ? (sent.tags ?? "") : tags}
            suggestions={suggestions}
            maxTags={maxTags}
            error={errors.tags}
          />
        </div>
        <p>
          <button type="submit" disabled={busy}>
            {busy ? "Saving…" : "Save"}
          </button>
        </p>
      </Form>
    </section>
  );
}

function StatusSelect({
  statuses,
  defaultValue,
  error,
}: {
  statuses: readonly string[];
  defaultValue: string;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor="lead-status">Status</label>
      <select id="lead-status" name="status" defaultValue={defaultValue} {...invalid("lead-status", error)}>
        {statuses.map((status) => (
          <option key={status} value={status}>
            {STATUS_LABELS[status] ?? status}
          </option>
        ))}
      </select>
      <FieldError id="lead-status-error" message={error} />
    </div>
  );
}

function OwnerSelect({ choices, defaultValue, error }: { choices: Person[]; defaultValue: string; error?: string }) {
  return (
    <div>
      <label htmlFor="lead-owner">Owner</label>
      <select id="lead-owner" name="ownerId" defaultValue={defaultValue} {...invalid("lead-owner", error)}>
        <option value="">Nobody</option>
        {choices.map((person) => (
          <option key={person.id} value={person.id}>
            {person.name ? `${person.name} (${person.email})` : person.email}
          </option>
        ))}
      </select>
      <FieldError id="lead-owner-error" message={error} />
    </div>
  );
}

function SpamNotice({ stage, busy }: { stage: string; busy: boolean }) {
  // The same form as the work form's, with only the status; refusals show there.
  const [form] = useForm({
    id: "lead-spam",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LeadWorkFormSchema }),
  });
  return (
    <Form method="post" className="notice warn actions" aria-label="Spam" {...getFormProps(form)}>
      <input type="hidden" name="intent" value="update" />
      <span>
        Marked as <strong>spam</strong>: left out of the lead list unless spam is asked for. Not spam puts it back at{" "}
        {STATUS_LABELS[stage] ?? stage}.
      </span>
      <button type="submit" name="status" value={stage} className="secondary" disabled={busy}>
        Not spam
      </button>
    </Form>
  );
}

function TagsInput({
  value,
  suggestions,
  maxTags,
  error,
}: {
  value: string;
  suggestions: string[];
  maxTags: number;
  error?: string;
}) {
  return (
    <div>
      <label htmlFor="lead-tags">Tags</label>
      <input
        id="lead-tags"
        name="tags"
        list="lead-tag-suggestions"
        defaultValue={value}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "lead-tags-error lead-tags-hint" : "lead-tags-hint"}
      />
      <datalist id="lead-tag-suggestions">
        {suggestions.map((tag) => (
          <option key={tag} value={tag} />
        ))}
      </datalist>
      <small id="lead-tags-hint" className="muted">
        Separated by commas; at most {maxTags}.
      </small>
      <FieldError id="lead-tags-error" message={error} />
    </div>
  );
}

/** An input's accessibility attributes when it was refused. */
const invalid = (id: string, error?: string) =>
  error ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {};

function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="field-error" role="alert">
      {message}
    </p>
  ) : null;
}

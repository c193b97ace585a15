// The ticket page's merge action (decision 072): the ticket to merge into, by its reference.
// A plain post with an `intent`, so it works without JavaScript; the schema the action uses
// checks it in the browser too (Conform). Once merged, the page says where it went instead.
import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "@remix-run/react";
import { MergeFormSchema } from "~/support/support-schemas";

export function MergeForm({
  reference,
  candidates,
  busy,
  lastResult,
}: {
  reference: string;
  /** The same customer's other requests, offered as the field's suggestions. */
  candidates: Array<{ reference: string; subject: string }>;
  busy: boolean;
  lastResult: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useForm({
    id: "merge",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: MergeFormSchema }),
  });
  const error = fields.into.errors?.[0] ?? form.errors?.[0];
  return (
    <details className="card" open={Boolean(lastResult)}>
      <summary>Merge into another request</summary>
      <p className="muted">
        Moves the messages, notes and attachments of {reference} into the request you name, closes {reference}, and
        files later replies to {reference} there. It cannot be undone.
      </p>
      {candidates.length > 0 ? (
        <p className="muted">
          The same customer’s other requests:{" "}
          {candidates.map((candidate, index) => (
            <span key={candidate.reference}>
              {index > 0 ? ", " : null}
              <Link to={`/support/${candidate.reference}`}>{candidate.reference}</Link> ({candidate.subject})
            </span>
          ))}
        </p>
      ) : null}
      <Form method="post" className="actions" aria-label="Merge" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="merge" />
        <label htmlFor="merge-into">Merge into</label>{" "}
        <input
          {...getInputProps(fields.into, { type: "text", ariaAttributes: false })}
          id="merge-into"
          placeholder="SR-1042"
          autoComplete="off"
          spellCheck={false}
          required
          list="merge-candidates"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "merge-error" : undefined}
        />{" "}
        <datalist id="merge-candidates">
          {candidates.map((candidate) => (
            <option key={candidate.reference} value={candidate.reference}>
              {candidate.subject}
            </option>
          ))}
        </datalist>
        <button type="submit" className="secondary" disabled={busy}>
          {busy ? "Merging…" : "Merge"}
        </button>
        {error ? (
          <span id="merge-error" className="error" role="alert">
            {error}
          </span>
        ) : null}
      </Form>
    </details>
  );
}

/** Said at the top of a merged ticket's page: where its thread went. */
export function MergedNotice({ into }: { into: string }) {
  return (
    <p className="notice" role="status" data-testid="merged-into">
      This request was merged into <Link to={`/support/${into}`}>{into}</Link>: its messages and notes are there, and
      replies to it are filed there.
    </p>
  );
}

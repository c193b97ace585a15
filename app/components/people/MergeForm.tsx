// The person page's merge (decision 071): a plain form post of the other person's address or
// id; the page answers with a redirect to the joined person, or 422 and the reason shown here.
import { Form } from "@remix-run/react";

export function MergeForm({ busy, error }: { busy: boolean; error: string | null }) {
  return (
    <section className="card" aria-labelledby="merge-heading">
      <h2 id="merge-heading">Merge into another person</h2>
      <p className="muted">
        When this is the same person as another record: their addresses, leads and support requests all move to the
        other person, and this record goes. It cannot be split again.
      </p>
      <Form method="post" className="row">
        <div>
          <label htmlFor="merge-into">The other person&apos;s address or id</label>
          <input
            id="merge-into"
            name="into"
            required
            maxLength={320}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "merge-error" : undefined}
          />
          {error ? (
            <p id="merge-error" className="field-error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div>
          <button type="submit" disabled={busy}>
            {busy ? "Merging…" : "Merge"}
          </button>
        </div>
      </Form>
    </section>
  );
}

// /settings/privacy: a person's requests (decision 069). Owners and admins download everything
// held for an email address as a JSON file (the form posts to /settings/privacy/export), or
// erase it after ticking a confirmation. Plain forms: both work without JavaScript.
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { actorOf } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { erasePerson, type EraseCounts } from "~/privacy/person-data.server";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import { page } from "~/utils/http/page.server";
import { plural } from "~/utils/plural";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Privacy requests · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "people.manage");
  // A refused export comes back here (the export answers with a file, not this page).
  return { exportError: new URL(request.url).searchParams.get("exportError")?.slice(0, 200) ?? null };
});

type EraseAnswer = { erased: EraseCounts; email: string } | { error: string; email: string };

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const user = await authorize(request, "people.manage");
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  if (form.get("confirm") !== "on") {
    return data<EraseAnswer>({ error: "Tick the box to confirm: erasing cannot be undone.", email }, 422);
  }
  try {
    const erased = await erasePerson({ email, confirm: true }, actorOf(user, context));
    return data<EraseAnswer>({ erased, email: "" });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return data<EraseAnswer>({ error: error.details[0]?.message ?? error.message, email }, 422);
  }
});

/** "3 leads, 1 support request, 4 emails": the kinds that had rows. */
function summary(counts: EraseCounts): string {
  const words: Array<[string, string, string]> = [
    ["leads", "lead", "leads"],
    ["partialLeads", "partial lead", "partial leads"],
    ["supportRequests", "support request", "support requests"],
    ["attachments", "attachment", "attachments"],
    ["emails", "email", "emails"],
    ["webhookEvents", "webhook event", "webhook events"],
    ["pendingDeliveries", "pending webhook delivery", "pending webhook deliveries"],
    ["auditEntries", "audit entry rewritten", "audit entries rewritten"],
  ];
  const parts = words.flatMap(([kind, one, other]) => (counts[kind] ? [plural(counts[kind], one, other)] : []));
  return parts.length > 0 ? parts.join(", ") : "nothing was held for this address";
}

export default function PrivacyPage() {
  const { exportError } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const eraseError = answer && "error" in answer ? answer.error : null;
  return (
    <>
      <h1>Privacy requests</h1>
      <p className="muted">
        When someone asks what you hold about them, or asks you to delete it, find it here by their email address. See
        docs/api/privacy.md for what is included and what is kept.
      </p>
      <section className="card" aria-labelledby="export-heading">
        <h2 id="export-heading">Download a person&rsquo;s data</h2>
        <ActionNotice error={exportError} />
        <Form method="post" action="/settings/privacy/export" reloadDocument aria-label="Download a person's data">
          <p>
            <label htmlFor="export-email">Email address</label>
            <input id="export-email" name="email" type="email" required maxLength={254} autoComplete="off" />
          </p>
          <p className="hint">
            Their leads, partial answers, support requests, emails sent and webhook events, as one JSON file.
          </p>
          <button type="submit">Download JSON</button>
        </Form>
      </section>
      <section className="card" aria-labelledby="erase-heading">
        <h2 id="erase-heading">Erase a person&rsquo;s data</h2>
        <ActionNotice
          done={answer && "erased" in answer ? `Erased: ${summary(answer.erased)}.` : null}
          error={eraseError}
        />
        <Form method="post" aria-label="Erase a person's data">
          <input type="hidden" name="intent" value="erase" />
          <p>
            <label htmlFor="erase-email">Email address</label>
            <input
              id="erase-email"
              name="email"
              type="email"
              required
              maxLength={254}
              autoComplete="off"
              defaultValue={answer?.email ?? ""}
              aria-invalid={eraseError ? true : undefined}
            />
          </p>
          <p>
            <input type="checkbox" id="erase-confirm" name="confirm" />
            <label htmlFor="erase-confirm">
              I understand that everything held for this address is deleted for good, in one step
            </label>
          </p>
          <p className="hint">
            Leads, partial answers, support requests with their attachments, emails and webhook events go; pending
            webhook deliveries are dropped. The audit log keeps its entries, with a hash in place of the address.
          </p>
          <button type="submit" className="danger">
            Erase
          </button>
        </Form>
      </section>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

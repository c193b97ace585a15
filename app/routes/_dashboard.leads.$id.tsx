// /leads/:id: one lead, and working it: its status, owner and tags (intent=update), staff
// notes (intent=note), the timeline of who changed what, the same person's other leads and
// support requests, and the two-step delete. Every action is a plain form post answered
// with a redirect (or 422 naming the field), so all of it works without JavaScript.
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actorOf } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { LeadTimeline, NoteForm } from "~/components/leads/LeadTimeline";
import { LeadConsents, LeadSource, LeadValues } from "~/components/leads/LeadValues";
import { LeadWorkForm } from "~/components/leads/LeadWorkForm";
import { PersonHistory } from "~/components/leads/PersonHistory";
import { LocalTime } from "~/components/LocalTime";
import { PersonLinkCard } from "~/components/people/FirstTouch";
import { RouteError } from "~/components/RouteError";
import type { LeadData } from "~/forms/schema/form-schema";
import { deleteLead } from "~/leads/lead-delete.server";
import { LEAD_STATUSES } from "~/leads/lead-filters.server";
import { personName } from "~/leads/lead-name";
import { saveLeadForm, type LeadFormRefusal } from "~/leads/lead-page-form.server";
import { MAX_NOTE_LENGTH, MAX_TAGS, tagSuggestions } from "~/leads/lead-work.server";
import { getLead } from "~/leads/lead.server";
import { personLinkFor } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { listStaff } from "~/staff/staff.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${leadTitle(data.lead)} · Lead Capture` : "Lead · Lead Capture" },
];

const NOT_FOUND = "There is no lead with this id; it may have been deleted.";
/** Lead ids are cuids: anything else names nothing (and PostgreSQL refuses some text outright). */
const ID = /^[\w-]{1,64}$/;

function leadId(params: LoaderFunctionArgs["params"]): string {
  if (!ID.test(params.id ?? "")) throw new Response(NOT_FOUND, { status: 404 });
  return params.id!;
}

const DONE: Record<string, string> = { update: "Saved.", note: "Note added." };

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "leads.read");
  const [lead, staff, suggestions] = await Promise.all([getLead(leadId(params)), listStaff(), tagSuggestions()]);
  if (!lead) throw new Response(NOT_FOUND, { status: 404 });
  const person = await personLinkFor(lead.email);
  const search = new URL(request.url).searchParams;
  return {
    lead,
    person,
    // Every user names timeline entries (a disabled one too); only enabled, joined ones can own a lead.
    people: staff.map(({ id, name, email }) => ({ id, name, email })),
    owners: staff.filter((member) => member.status === "active").map(({ id, name, email }) => ({ id, name, email })),
    suggestions,
    statuses: LEAD_STATUSES,
    limits: { tags: MAX_TAGS, note: MAX_NOTE_LENGTH },
    done: DONE[search.get("done") ?? ""] ?? null,
    // Deleting takes two steps that both work without JavaScript: ?confirm=delete shows the question.
    confirming: search.get("confirm") === "delete",
  };
});

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await authorize(request, "leads.write");
  const id = leadId(params);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "delete") {
    if (!(await deleteLead(id, actorOf(user, context)))) throw new Response(NOT_FOUND, { status: 404 });
    return redirect("/leads?deleted=1");
  }
  if (intent !== "update" && intent !== "note") throw new Response("Unknown action.", { status: 400 });
  // A missing lead is the page's 404 (page()); bad input is shown next to its input.
  const refused = await saveLeadForm(id, intent, form, actorOf(user, context));
  if (refused) return data<LeadFormRefusal>(refused.refusal, { status: refused.status });
  return redirect(`/leads/${id}?done=${intent}`);
});

/** The person's name, else their address, else the form it came through. */
function leadTitle(lead: {
  data: LeadData;
  fields: { key: string; label: string }[];
  email: string | null;
  formName: string;
}) {
  return personName(lead.data, lead.fields) ?? lead.email ?? `Lead from ${lead.formName}`;
}

export default function LeadPage() {
  const { lead, person, people, owners, suggestions, statuses, limits, done, confirming } =
    useLoaderData<typeof loader>();
  const refusal = useActionData<typeof action>() as LeadFormRefusal | undefined;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>
        {leadTitle(lead)} {lead.isSpam ? <span className="badge spam">spam</span> : null}
        {lead.awaitingConfirmation ? <span className="badge">awaiting confirmation</span> : null}
      </h1>
      <p className="muted">
        Sent <LocalTime iso={lead.createdAt} /> through <Link to={`/forms/${lead.formId}/fields`}>{lead.formName}</Link>
        . Shown with the form&apos;s fields as they were then (version {lead.schemaVersion}: each change to the fields
        makes a new version, and older leads keep theirs).
        {lead.awaitingConfirmation ? (
          <> The visitor has not yet confirmed the address by the emailed link (double opt-in).</>
        ) : null}
        {lead.confirmedAt ? (
          <>
            {" "}
            The visitor confirmed the address <LocalTime iso={lead.confirmedAt} />.
          </>
        ) : null}
      </p>
      <ActionNotice done={busy || refusal ? null : done} />

      <LeadWorkForm
        lead={lead}
        owners={owners}
        statuses={statuses}
        suggestions={suggestions}
        maxTags={limits.tags}
        busy={busy === "update"}
        lastResult={refusal?.intent === "update" ? refusal.result : undefined}
      />
      <LeadValues lead={lead} />
      <LeadConsents lead={lead} />
      <PersonLinkCard person={person} />
      <PersonHistory history={lead.history} />
      <section className="card" aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Notes and timeline</h2>
        <LeadTimeline timeline={lead.timeline} people={people} />
        {/* A new entry empties the note box (the form remounts); a refused note keeps its text. */}
        <NoteForm
          key={lead.timeline.at(-1)?.id ?? "none"}
          maxLength={limits.note}
          busy={busy === "note"}
          lastResult={refusal?.intent === "note" ? refusal.result : undefined}
        />
      </section>
      <LeadSource lead={lead} />

      {confirming ? (
        <section className="card error-panel" role="alertdialog" aria-labelledby="confirm-heading">
          <h2 id="confirm-heading">Delete this lead?</h2>
          <p>The lead and its values are removed for good; exports will no longer include it.</p>
          <Form method="post" className="actions">
            <button type="submit" name="intent" value="delete" className="danger" disabled={busy === "delete"}>
              {busy === "delete" ? "Deleting…" : "Yes, delete the lead"}
            </button>
            <Link to={`/leads/${lead.id}`}>Cancel</Link>
          </Form>
        </section>
      ) : (
        <p>
          <Link to={`/leads/${lead.id}?confirm=delete`} className="button secondary">
            Delete lead…
          </Link>
        </p>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound={NOT_FOUND} />;
}

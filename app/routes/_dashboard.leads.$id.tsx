// /leads/:id: one lead, and working it: its status, owner and tags (intent=update), staff
// notes (intent=note), the timeline of who changed what, the same person's other leads and
// support requests, and the two-step delete. Every action is a plain form post answered
// with a redirect (or 422 naming the field), so all of it works without JavaScript.
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { LeadTimeline, NoteForm } from "~/components/leads/LeadTimeline";
import { LeadSource, LeadValues } from "~/components/leads/LeadValues";
import { LeadWorkForm, type WorkErrors } from "~/components/leads/LeadWorkForm";
import { PersonHistory } from "~/components/leads/PersonHistory";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import type { LeadData } from "~/forms/form-schema";
import { deleteLead } from "~/leads/lead-delete.server";
import { LEAD_STATUSES } from "~/leads/lead-filters.server";
import { personName } from "~/leads/lead-name";
import { addLeadNote, MAX_NOTE_LENGTH, MAX_TAGS, tagSuggestions, updateLead } from "~/leads/lead-work.server";
import { getLead } from "~/leads/lead.server";
import { authorize } from "~/staff/auth.server";
import { listStaff } from "~/staff/staff.server";
import { statusOf } from "~/utils/api.server";
import { DomainError, type ErrorDetail } from "~/utils/domain-error";
import { page } from "~/utils/page.server";
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
  const search = new URL(request.url).searchParams;
  return {
    lead,
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

/** A refused update or note: the message by input, and (update) what was sent, to show again. */
type Refusal = {
  intent: "update" | "note";
  errors: WorkErrors & { body?: string };
  values: { status?: string; ownerId?: string; tags?: string; body?: string };
};

/** The domain's paths (`tags.3`) as the page's inputs (`tags`), with the tag's position. */
function errorsByInput(details: ErrorDetail[]): Refusal["errors"] {
  const errors: Record<string, string> = {};
  for (const { path, message } of details) {
    const [input, index] = path.split(".");
    errors[input] ??= index === undefined ? message : `Tag ${Number(index) + 1}: ${message}`;
  }
  return errors;
}

const text = (value: FormDataEntryValue | null) => (value === null ? undefined : String(value));

const tagList = (value: string) =>
  value
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);

/**
 * The work form as updateLead's patch: an empty owner is nobody; tags are comma-separated.
 * An input that still holds what the page showed (`<name>Was`) is left out, so a save
 * changes only what this person changed.
 */
function patchOf(form: FormData) {
  const changed = (name: string, same = (a: string, b: string) => a === b) => {
    const value = text(form.get(name));
    const was = text(form.get(`${name}Was`));
    return value === undefined || (was !== undefined && same(value, was)) ? undefined : value;
  };
  const status = changed("status");
  const ownerId = changed("ownerId");
  const tags = changed("tags", (a, b) => tagList(a.toLowerCase()).join() === tagList(b.toLowerCase()).join());
  return {
    ...(status !== undefined && { status }),
    ...(ownerId !== undefined && { ownerId: ownerId || null }),
    ...(tags !== undefined && { tags: tagList(tags) }),
  };
}

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await authorize(request, "leads.write");
  const id = leadId(params);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "delete") {
    if (!(await deleteLead(id))) throw new Response(NOT_FOUND, { status: 404 });
    await auditor(context, user)("lead.delete", `lead:${id}`);
    return redirect("/leads?deleted=1");
  }
  if (intent !== "update" && intent !== "note") throw new Response("Unknown action.", { status: 400 });
  try {
    if (intent === "update") await updateLead(id, patchOf(form), user);
    else await addLeadNote(id, { body: text(form.get("body")) ?? "" }, user);
  } catch (thrown) {
    // A missing lead is the page's 404 (page()); bad input is shown next to its input.
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    const errors = errorsByInput(thrown.details);
    if (Object.keys(errors).length === 0) errors[intent === "note" ? "body" : "status"] = thrown.message;
    const values = Object.fromEntries(
      ["status", "ownerId", "tags", "body"].flatMap((name) => (form.has(name) ? [[name, text(form.get(name))]] : [])),
    );
    return data<Refusal>({ intent, errors, values }, { status: statusOf(thrown) });
  }
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
  const { lead, people, owners, suggestions, statuses, limits, done, confirming } = useLoaderData<typeof loader>();
  const refusal = useActionData<typeof action>() as Refusal | undefined;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? navigation.formData?.get("intent") : null;
  return (
    <>
      <p>
        <Link to="/leads">← All leads</Link>
      </p>
      <h1>
        {leadTitle(lead)} {lead.isSpam ? <span className="badge spam">spam</span> : null}
      </h1>
      <p className="muted">
        Sent <LocalTime iso={lead.createdAt} /> through <Link to={`/forms/${lead.formId}/fields`}>{lead.formName}</Link>
        . Shown with the form&apos;s fields as they were then (version {lead.schemaVersion}: each change to the fields
        makes a new version, and older leads keep theirs).
      </p>
      <ActionNotice done={busy || refusal ? null : done} />

      <LeadWorkForm
        lead={lead}
        owners={owners}
        statuses={statuses}
        suggestions={suggestions}
        maxTags={limits.tags}
        busy={busy === "update"}
        errors={refusal?.intent === "update" ? refusal.errors : undefined}
        values={refusal?.intent === "update" ? refusal.values : undefined}
      />
      <LeadValues lead={lead} />
      <PersonHistory history={lead.history} />
      <section className="card" aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Notes and timeline</h2>
        <LeadTimeline timeline={lead.timeline} people={people} />
        {/* A new entry empties the note box (the form remounts); a refused note keeps its text. */}
        <NoteForm
          key={lead.timeline.at(-1)?.id ?? "none"}
          maxLength={limits.note}
          busy={busy === "note"}
          error={refusal?.intent === "note" ? refusal.errors.body : undefined}
          value={refusal?.intent === "note" ? refusal.values.body : undefined}
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

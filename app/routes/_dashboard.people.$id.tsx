// /people/:id: one person (decision 071): their addresses, counts, first touch and timeline
// (newest first, a page at a time), and merging them into another person (a plain form post
// answered with a redirect to that person, or 422 with the reason): works without JavaScript.
import { data, redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actorOf } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { Breakable } from "~/components/Breakable";
import { LocalTime } from "~/components/LocalTime";
import { FirstTouchDetails } from "~/components/people/FirstTouch";
import { MergeForm } from "~/components/people/MergeForm";
import { PersonTimeline } from "~/components/people/PersonTimeline";
import { RouteError } from "~/components/RouteError";
import { getPerson } from "~/people/people.server";
import { mergeFromPage } from "~/people/person-merge.server";
import { authorize } from "~/staff/auth.server";
import { decodeCursor } from "~/storage/keyset.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.person.name ?? data.person.email} · People · Lead Capture` : "Person · Lead Capture" },
];

const NOT_FOUND = "There is no person with this id; they may have been merged into another or erased.";
const ID = /^[\w-]{1,100}$/;

function personId(params: LoaderFunctionArgs["params"]): string {
  if (!ID.test(params.id ?? "")) throw new Response(NOT_FOUND, { status: 404 });
  return params.id!;
}

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "people.read");
  const search = new URL(request.url).searchParams;
  const rawCursor = search.get("cursor") ?? "";
  const cursor = rawCursor && decodeCursor(rawCursor) ? rawCursor : undefined;
  const person = await getPerson(personId(params), cursor ? { cursor } : {});
  return { person, merged: search.get("merged") === "1" };
});

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await authorize(request, "people.merge");
  const id = personId(params);
  const result = await mergeFromPage(id, await request.formData(), actorOf(user, context));
  if ("into" in result) return redirect(`/people/${result.into}?merged=1`);
  if (result.status === 404) throw new Response(NOT_FOUND, { status: 404 });
  return data({ error: result.message }, { status: 422 });
});

export default function PersonPage() {
  const { person, merged } = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  return (
    <>
      <p>
        <Link to="/people">← All people</Link>
      </p>
      <h1>{person.name ?? <Breakable text={person.email} />}</h1>
      <ActionNotice done={merged && !busy ? "Merged: this person now holds both records." : null} />
      <section className="card" aria-labelledby="about-heading">
        <h2 id="about-heading">About</h2>
        <dl className="summary">
          <dt>{person.addresses.length === 1 ? "Address" : "Addresses"}</dt>
          <dd>
            {person.addresses.map((address) => (
              <span key={address}>
                <Breakable text={address} />
                <br />
              </span>
            ))}
          </dd>
          <dt>Leads</dt>
          <dd>{person.leadCount}</dd>
          <dt>Support requests</dt>
          <dd>{person.ticketCount}</dd>
          <dt>First seen</dt>
          <dd>
            <LocalTime iso={person.firstSeenAt} />
          </dd>
          <dt>Last seen</dt>
          <dd>
            <LocalTime iso={person.lastSeenAt} />
          </dd>
        </dl>
        <h3>First touch</h3>
        <FirstTouchDetails touch={person.firstTouch} />
      </section>
      <section className="card" aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        <PersonTimeline items={person.timeline} />
        {person.nextCursor ? (
          <p>
            <Link to={`/people/${person.id}?cursor=${person.nextCursor}`}>Older →</Link>
          </p>
        ) : null}
      </section>
      <MergeForm busy={busy} error={refused?.error ?? null} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound={NOT_FOUND} />;
}

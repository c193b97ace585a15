// /people: everyone who sent a lead or wrote to support, one person per address (decision 071),
// newest first, found by an address or a name. Server-drawn, a page at a time with a link to
// the next: works without JavaScript.
import { Form, Link, useLoaderData } from "@remix-run/react";
import { PeopleTable } from "~/components/people/PeopleTable";
import { RouteError } from "~/components/RouteError";
import { listPeople } from "~/people/people.server";
import { authorize } from "~/staff/auth.server";
import { decodeCursor } from "~/storage/keyset.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "People · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "people.read");
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, 200);
  const rawCursor = url.searchParams.get("cursor") ?? "";
  // A cursor that is not ours starts from the newest, as the lead list does.
  const cursor = rawCursor && decodeCursor(rawCursor) ? rawCursor : undefined;
  return { q, ...(await listPeople({ ...(q ? { q } : {}), ...(cursor ? { cursor } : {}) })) };
});

export default function PeoplePage() {
  const { q, people, nextCursor } = useLoaderData<typeof loader>();
  const next = new URLSearchParams({ ...(q ? { q } : {}), ...(nextCursor ? { cursor: nextCursor } : {}) });
  return (
    <>
      <h1>People</h1>
      <p className="muted">
        One person per email address, with every lead and support request from it. Two records of one person (a work and
        a home address, say) can be merged on the person&apos;s page.
      </p>
      <Form method="get" action="/people" className="card row" role="search" aria-label="Find people">
        <div>
          <label htmlFor="people-q">Address or name</label>
          <input id="people-q" name="q" type="search" defaultValue={q} maxLength={200} />
        </div>
        <div>
          <button type="submit">Find</button>
        </div>
      </Form>
      {people.length === 0 ? (
        <p className="muted">
          {q ? "No one matches." : "No people yet: they appear with their first lead or support request."}
        </p>
      ) : (
        <PeopleTable people={people} />
      )}
      {nextCursor ? (
        <p>
          <Link to={`/people?${next}`}>More people →</Link>
        </p>
      ) : null}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

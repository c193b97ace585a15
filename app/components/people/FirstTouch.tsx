// Where a person came from (decision 071): the source, campaign, referrer and landing page of
// their earliest lead that is not spam, and the form it came through.
import { Link } from "@remix-run/react";
import { Breakable } from "~/components/Breakable";
import { LocalTime } from "~/components/LocalTime";
import type { FirstTouch } from "~/people/people.server";

/** A person's first touch, or null when they have sent no lead (or only spam). */
export type FirstTouchView = FirstTouch | null;

/** The source in a few words: utm_source, else the referrer's host, else "direct". */
export function sourceWords(touch: FirstTouchView): string {
  if (!touch) return "no lead yet";
  return touch.utm_source ?? touch.referrerHost ?? "direct";
}

export function FirstTouchDetails({ touch }: { touch: FirstTouchView }) {
  if (!touch) return <p className="muted">No first touch: this person has sent no lead (or only spam).</p>;
  return (
    <dl className="summary">
      <dt>Source</dt>
      <dd>{touch.utm_source ?? <span className="muted">(none)</span>}</dd>
      <dt>Campaign</dt>
      <dd>{touch.utm_campaign ?? <span className="muted">(none)</span>}</dd>
      <dt>Referrer</dt>
      <dd>{touch.referrerHost ?? <span className="muted">(none)</span>}</dd>
      <dt>Landing page</dt>
      <dd>{touch.landingPage ? <Breakable text={touch.landingPage} /> : <span className="muted">(none)</span>}</dd>
      <dt>When</dt>
      <dd>
        <LocalTime iso={touch.at} /> through <Link to={`/forms/${touch.formId}/fields`}>its form</Link>
      </dd>
    </dl>
  );
}

/** On a lead's or a ticket's page: who this is, with a link to the person. */
export function PersonLinkCard({ person }: { person: { id: string; firstTouch: FirstTouchView } | null }) {
  if (!person) return null;
  return (
    <section className="card" aria-labelledby="person-heading">
      <h2 id="person-heading">Person</h2>
      <p>
        <Link to={`/people/${person.id}`}>See this person</Link>: every lead and support request of theirs.
      </p>
      <h3>First touch</h3>
      <FirstTouchDetails touch={person.firstTouch} />
    </section>
  );
}

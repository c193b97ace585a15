// A person's timeline (decision 071): leads, status changes, notes, support requests and their
// messages, newest first, each linking to the lead or the request it belongs to.
import { Link } from "@remix-run/react";
import { LocalTime } from "~/components/LocalTime";
import type { TimelineItem } from "~/people/person-timeline.server";

function Where({ item }: { item: TimelineItem }) {
  if (item.leadId) return <Link to={`/leads/${item.leadId}`}>the lead</Link>;
  if (item.reference) return <Link to={`/support/${item.reference}`}>#{item.reference}</Link>;
  return null;
}

function What({ item }: { item: TimelineItem }) {
  switch (item.kind) {
    case "lead":
      return (
        <>
          Sent <Link to={`/leads/${item.leadId}`}>a lead</Link> through {item.title}{" "}
          <span className="badge">{item.to}</span>
        </>
      );
    case "status":
      return (
        <>
          {item.by ?? "Someone"} moved <Where item={item} /> from {item.from ?? "(none)"} to {item.to}
        </>
      );
    case "note":
      return (
        <>
          {item.by ?? "Someone"} noted on <Where item={item} />
        </>
      );
    case "ticket":
      return (
        <>
          Opened <Where item={item} />: {item.title} <span className="badge">{item.to}</span>
        </>
      );
    case "message":
      return (
        <>
          {item.to === "inbound" ? "Wrote" : `${item.by ?? "Staff"} answered`} in <Where item={item} />
        </>
      );
  }
}

export function PersonTimeline({ items }: { items: TimelineItem[] }) {
  if (items.length === 0) return <p className="muted">Nothing yet.</p>;
  return (
    <ol className="timeline" aria-label="Timeline">
      {items.map((item) => (
        <li key={`${item.kind}:${item.id}`}>
          <p>
            <What item={item} /> · <LocalTime iso={item.at} />
          </p>
          {item.body ? <p className="note-body">{item.body}</p> : null}
        </li>
      ))}
    </ol>
  );
}

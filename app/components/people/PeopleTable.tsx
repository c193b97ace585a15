// The people list (decision 071): who, how many leads and support requests, first and last
// seen, and where they came from. A table on wide screens, cards on a phone (app/styles.css).
import { Link } from "@remix-run/react";
import { Breakable } from "~/components/Breakable";
import { LocalTime } from "~/components/LocalTime";
import { TableScroll } from "~/components/TableScroll";
import type { PersonJson } from "~/people/people.server";
import { sourceWords } from "./FirstTouch";

export function PeopleTable({ people }: { people: PersonJson[] }) {
  return (
    <TableScroll label="People">
      <table aria-label="People">
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Leads</th>
            <th scope="col">Support requests</th>
            <th scope="col">First touch</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {people.map((person) => (
            <tr key={person.id}>
              <th scope="row" style={{ fontWeight: "normal" }}>
                <Link to={`/people/${person.id}`}>{person.name ?? <Breakable text={person.email} />}</Link>
                {person.name ? (
                  <>
                    <br />
                    <span className="muted">
                      <Breakable text={person.email} />
                    </span>
                  </>
                ) : null}
              </th>
              <td data-label="Leads">{person.leadCount}</td>
              <td data-label="Support requests">{person.ticketCount}</td>
              <td data-label="First touch">{sourceWords(person.firstTouch)}</td>
              <td data-label="First seen">
                <LocalTime iso={person.firstSeenAt} />
              </td>
              <td data-label="Last seen">
                <LocalTime iso={person.lastSeenAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

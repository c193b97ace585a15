// /settings/mail: the support mailbox the IMAP intake reads (decision 070), for owners and
// admins: its connection, the last message filed, the messages it could not file, and a
// "Fetch now" button (a plain form post: it works without JavaScript).
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { ActionNotice } from "~/components/ActionNotice";
import { LocalTime } from "~/components/LocalTime";
import { RouteError } from "~/components/RouteError";
import { TableScroll } from "~/components/TableScroll";
import { authorize } from "~/staff/auth.server";
import { fetchNow, mailboxPage } from "~/support/inbound/imap/imap-intake.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Mailbox · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "mail.manage");
  return mailboxPage();
});

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const audit = auditor(context, await authorize(request, "mail.manage"));
  const form = await request.formData();
  if (form.get("intent") !== "fetch") return data({ error: "Unknown action." }, { status: 400 });
  if (!(await fetchNow())) return data({ error: "No mailbox is connected: set IMAP_URL." }, { status: 409 });
  await audit("mail.fetch");
  return data({ done: "Fetching now: new messages are filed within seconds." });
});

export default function MailSettingsPage() {
  const { config, status } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as { done?: string; error?: string } | undefined;
  if (!config) {
    return (
      <>
        <h1>Mailbox</h1>
        <p>
          No mailbox is connected. Set <code>IMAP_URL</code> (for example{" "}
          <code>imaps://support%40example.com:app-password@imap.example.com:993/INBOX</code>) and restart the service:
          replies that arrive there are then filed to their tickets, as the inbound webhook files them.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Mailbox</h1>
      <ActionNotice done={answer?.done} error={answer?.error} />
      <dl>
        <dt>Mailbox</dt>
        <dd>
          <code>{config.user}</code> at{" "}
          <code>
            {config.host}:{config.port}
          </code>
          , folder <code>{config.folder}</code>
        </dd>
        <dt>Filed messages go to</dt>
        <dd>
          <code>{config.processedFolder}</code>; those that cannot be filed to <code>{config.failedFolder}</code>
        </dd>
        <dt>Connection</dt>
        <dd>
          {status ? (
            <>
              <strong>{status.state}</strong>
              {status.stateDetail ? ` (${status.stateDetail})` : ""}
              {status.stateAt ? (
                <>
                  {" "}
                  since <LocalTime iso={status.stateAt} seconds />
                </>
              ) : null}
            </>
          ) : (
            "not connected yet"
          )}
        </dd>
        <dt>Last message filed</dt>
        <dd>
          {status?.lastFiledAt ? (
            <>
              <LocalTime iso={status.lastFiledAt} seconds />
              {status.lastFiledTicket ? (
                <>
                  {" "}
                  to <a href={`/support/${encodeURIComponent(status.lastFiledTicket)}`}>{status.lastFiledTicket}</a>
                  {status.lastFiledSubject ? ` (“${status.lastFiledSubject}”)` : ""}
                </>
              ) : null}
            </>
          ) : (
            "none yet"
          )}
        </dd>
        <dt>Filed, not filed</dt>
        <dd>
          {status?.filedCount ?? 0} filed, {status?.failedCount ?? 0} not filed
        </dd>
      </dl>
      <Form method="post">
        <input type="hidden" name="intent" value="fetch" />
        <button type="submit">Fetch now</button>
      </Form>
      <h2>Messages not filed</h2>
      {status && status.failures.length > 0 ? <Failures failures={status.failures} /> : <p className="muted">None.</p>}
    </>
  );
}

type Failure = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["status"]>["failures"][number];

function Failures({ failures }: { failures: Failure[] }) {
  return (
    <TableScroll label="Messages not filed table">
      <table aria-label="Messages not filed">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">From</th>
            <th scope="col">Subject</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {failures.map((failure) => (
            <tr key={failure.id}>
              <td data-label="When">
                <LocalTime iso={failure.createdAt} seconds />
              </td>
              <td data-label="From">{failure.fromEmail ?? "—"}</td>
              <td data-label="Subject" className="wrap-anywhere">
                {failure.subject || "—"}
              </td>
              <td data-label="Why" className="wrap-anywhere">
                {failure.reason}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

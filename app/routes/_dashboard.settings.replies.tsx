// /settings/replies: the team's saved replies: the list, a new one, and deleting (plain forms:
// no JavaScript needed). Picked in a ticket's reply box, with placeholders filled there.
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ActionNotice } from "~/components/ActionNotice";
import { RouteError } from "~/components/RouteError";
import { authorize } from "~/staff/auth.server";
import { createSavedReply, deleteSavedReply, listSavedReplies, PLACEHOLDERS } from "~/support/saved-replies.server";
import { statusOf } from "~/utils/api.server";
import { DomainError } from "~/utils/domain-error";
import { page } from "~/utils/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Saved replies · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "support.read");
  return { replies: await listSavedReplies(), placeholders: PLACEHOLDERS };
});

type Answer = { done?: string; error?: string; name?: string; body?: string };

export const action = page(async function action({ request }: ActionFunctionArgs) {
  await authorize(request, "support.write");
  const form = await request.formData();
  const intent = form.get("intent");
  const name = String(form.get("name") ?? "");
  const body = String(form.get("body") ?? "");
  try {
    if (intent === "create") {
      const created = await createSavedReply({ name, body });
      return data<Answer>({ done: `Saved reply “${created.name}” added.` });
    }
    if (intent === "delete") {
      await deleteSavedReply(String(form.get("id") ?? ""));
      return data<Answer>({ done: "The saved reply was deleted." });
    }
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const message = thrown.details.map((detail) => `${detail.path}: ${detail.message}`).join(" ") || thrown.message;
    return data<Answer>({ error: message, name, body }, { status: statusOf(thrown) });
  }
  throw new Response("Unknown action.", { status: 400 });
});

export default function SavedRepliesPage() {
  const { replies, placeholders } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as Answer | undefined;
  return (
    <>
      <h1>Saved replies</h1>
      <p className="muted">
        Templates the whole team picks in a support request&apos;s reply box. Placeholders:{" "}
        {placeholders.map((name) => `{{${name}}}`).join(", ")}.
      </p>
      <ActionNotice done={answer?.done} error={answer?.error} />
      <section className="card" aria-labelledby="new-reply-heading">
        <h2 id="new-reply-heading">New saved reply</h2>
        <Form method="post" aria-label="New saved reply">
          <input type="hidden" name="intent" value="create" />
          <label htmlFor="reply-name">Name</label>
          <input id="reply-name" name="name" required maxLength={100} defaultValue={answer?.name} />
          <label htmlFor="reply-body">Text</label>
          <textarea id="reply-body" name="body" rows={5} required defaultValue={answer?.body} />
          <p>
            <button type="submit">Save the reply</button>
          </p>
        </Form>
      </section>
      <h2>The team&apos;s replies</h2>
      {replies.length === 0 ? (
        <p className="muted">None yet.</p>
      ) : (
        <ul className="saved-replies">
          {replies.map((reply) => (
            <li key={reply.id} className="card">
              <h3>{reply.name}</h3>
              <pre>{reply.body}</pre>
              <Form method="post">
                <input type="hidden" name="intent" value="delete" />
                <input type="hidden" name="id" value={reply.id} />
                <button type="submit" className="danger">
                  Delete {reply.name}
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

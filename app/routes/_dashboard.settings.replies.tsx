// /settings/replies: the team's saved replies: the list, a new one, and deleting (plain forms:
// no JavaScript needed; the new one is validated in the browser with the server's schema too,
// Conform). Picked in a ticket's reply box, with placeholders filled there.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ActionNotice } from "~/components/ActionNotice";
import { FieldError } from "~/components/form-builder/shared";
import { RouteError } from "~/components/RouteError";
import { fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { authorize } from "~/staff/auth.server";
import { createSavedReply, deleteSavedReply, listSavedReplies, PLACEHOLDERS } from "~/support/saved-replies.server";
import { SavedReplyFormSchema } from "~/support/support-schemas";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Saved replies · Lead Capture" }];

export const loader = page(async function loader({ request }: LoaderFunctionArgs) {
  await authorize(request, "support.read");
  return { replies: await listSavedReplies(), placeholders: PLACEHOLDERS };
});

type Answer = { reply?: SubmissionResult<string[]>; done?: string; error?: string };

export const action = page(async function action({ request }: ActionFunctionArgs) {
  await authorize(request, "support.write");
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "delete") {
    try {
      await deleteSavedReply(String(form.get("id") ?? ""));
      return data<Answer>({ done: "The saved reply was deleted." });
    } catch (thrown) {
      if (!(thrown instanceof DomainError)) throw thrown;
      return data<Answer>({ error: thrown.message }, { status: statusOf(thrown) });
    }
  }
  if (intent !== "create") throw new Response("Unknown action.", { status: 400 });
  // The schema the browser already checked with (Conform): the server checks again.
  const submission = parseWithZod(form, { schema: SavedReplyFormSchema });
  if (submission.status !== "success") return data<Answer>({ reply: submission.reply() }, { status: 422 });
  try {
    const created = await createSavedReply(submission.value);
    return data<Answer>({ reply: submission.reply({ resetForm: true }), done: `Saved reply “${created.name}” added.` });
  } catch (thrown) {
    if (!(thrown instanceof DomainError)) throw thrown;
    const reply = submission.reply({ fieldErrors: fieldErrorsFrom(thrown.details) });
    return data<Answer>({ reply }, { status: statusOf(thrown) });
  }
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
      <NewReplyForm lastResult={answer?.reply} />
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

function NewReplyForm({ lastResult }: { lastResult: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useForm({
    id: "new-reply",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: SavedReplyFormSchema }),
  });
  const errorOf = (name: "name" | "body") => fields[name].errors?.join(" ");
  const described = (name: "name" | "body") =>
    errorOf(name) ? { "aria-invalid": true as const, "aria-describedby": `reply-${name}-error` } : {};
  return (
    <section className="card" aria-labelledby="new-reply-heading">
      <h2 id="new-reply-heading">New saved reply</h2>
      <Form method="post" aria-label="New saved reply" {...getFormProps(form)}>
        <input type="hidden" name="intent" value="create" />
        <label htmlFor="reply-name">Name</label>
        <input
          id="reply-name"
          name="name"
          required
          maxLength={100}
          key={fields.name.key}
          defaultValue={fields.name.initialValue as string | undefined}
          {...described("name")}
        />
        <FieldError id="reply-name-error" message={errorOf("name")} />
        <label htmlFor="reply-body">Text</label>
        <textarea
          id="reply-body"
          name="body"
          rows={5}
          required
          key={fields.body.key}
          defaultValue={fields.body.initialValue as string | undefined}
          {...described("body")}
        />
        <FieldError id="reply-body-error" message={errorOf("body")} />
        <p>
          <button type="submit">Save the reply</button>
        </p>
      </Form>
    </section>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}

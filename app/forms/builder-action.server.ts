// How the form builder's sections answer their posts. Each section route names the intents
// it takes, with the permission and the change each needs; this runs the one that was
// posted and answers the builder's ActionResult: "saved", or a refusal that the section
// shows beside the form that caused it. A missing form is the page's 404.
import { parse } from "@conform-to/react";
import { data } from "@remix-run/node";
import { actorOf, type AuditActor } from "~/audit/audit.server";
import { editorErrors, type ActionResult } from "~/components/form-builder/shared";
import type { Permission } from "~/staff/policy";
import { authorize, requireUser } from "../staff/auth.server";
import { DomainError } from "../utils/domain-error";
import { statusOf } from "../utils/http/api.server";
import { page } from "../utils/http/page.server";
import type { Submission, SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs } from "@remix-run/node";

type Change = {
  formId: string;
  form: FormData;
  /** Who posted: the operations the intents call record their audit entries for them. */
  actor: AuditActor;
};

export type BuilderIntents = Record<
  string,
  {
    permission: Permission;
    /**
     * Makes the change; a Response (a redirect) it returns is the answer, otherwise "saved",
     * said back as `Saved: <the text it returns>` when it returns one ("Email moved up").
     */
    run: (change: Change) => Promise<unknown>;
  }
>;

export function builderAction(intents: BuilderIntents) {
  return page(async function action({ request, params, context }: ActionFunctionArgs) {
    await requireUser(request);
    const form = await request.formData();
    const intent = String(form.get("intent") ?? "");
    const fieldKey = String(form.get("fieldKey") ?? "");
    const known = Object.hasOwn(intents, intent) ? intents[intent] : undefined;
    const user = await authorize(request, known?.permission ?? "forms.write");
    if (!known) {
      return data<ActionResult>({ ok: false, intent, fieldKey, message: "Unknown action." }, { status: 400 });
    }
    try {
      const answer = await known.run({ formId: params.id!, form, actor: actorOf(user, context) });
      if (answer instanceof Response) return answer;
      if (isActionResult(answer)) return data<ActionResult>(answer.result, { status: answer.status });
      const message = typeof answer === "string" ? `Saved: ${answer}` : undefined;
      return data<ActionResult>({ ok: true, intent, fieldKey, message });
    } catch (thrown) {
      if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
      // What was posted comes back, so a refused form without JavaScript shows it again.
      const values = Object.fromEntries(
        [...form.entries()].filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
      // Conform's reply for the field editors, which show it as they show their own checks.
      const reply = parse(form, { resolve: () => ({ error: editorErrors(thrown) }) }).reply();
      return data<ActionResult>(
        { ok: false, intent, fieldKey, message: thrown.message, details: thrown.details, values, reply },
        { status: statusOf(thrown) },
      );
    }
  });
}

type Answer = { result: ActionResult; status: number; answer: true };
function isActionResult(value: unknown): value is Answer {
  return typeof value === "object" && value !== null && (value as Answer).answer === true;
}

/**
 * A panel validated with Conform (name and description, settings, notifications, archive
 * and delete): parsed with the schema the browser checked with (decision 022) and
 * answered with Conform's reply, refusals by field.
 */
export async function savePanel<Value>(
  intent: string,
  submission: Submission<unknown, string[], Value>,
  save: (value: Value) => Promise<unknown>,
): Promise<Answer | Response> {
  const answer = (ok: boolean, reply: SubmissionResult<string[]>, status = 200): Answer => ({
    result: { ok, intent, fieldKey: "", reply },
    status,
    answer: true,
  });
  if (submission.status !== "success") return answer(false, submission.reply(), 422);
  try {
    const saved = await save(submission.value);
    // A save that moves on (deleting a form goes to the list) answers with its redirect.
    if (saved instanceof Response) return saved;
    return answer(true, submission.reply());
  } catch (thrown) {
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    // The API's paths (`settings.allowedOrigins.1`) named as the form's inputs.
    const fieldErrors: Record<string, string[]> = {};
    for (const detail of thrown.details ?? []) {
      const name = detail.path
        .replace(/^settings\.(notifications\.|captcha\.|autoresponder\.)?/, "")
        .replace(/\.(\d+)/g, "[$1]");
      (fieldErrors[name] ??= []).push(detail.message);
    }
    return answer(false, submission.reply({ formErrors: [thrown.message], fieldErrors }), statusOf(thrown));
  }
}

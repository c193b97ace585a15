// GET, PATCH and DELETE /api/forms/:id.
import { z } from "zod";
import { actorOf } from "~/audit/audit.server";
import { isPlainObject } from "~/capture/lead-submission.server";
import { changeForm, removeForm } from "~/forms/form-changes.server";
import { formJson, getFormWithCounts } from "~/forms/form.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

const DeleteQuerySchema = z
  .object({ deleteLeads: z.enum(["true", "false"], { error: "Use true or false." }).optional() })
  .strict();

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "forms.read");
  return json(formJson(await getFormWithCounts(params.id!)));
});

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const user = await authorize(request, request.method === "DELETE" ? "forms.delete" : "forms.write");
  const id = params.id!;
  switch (request.method) {
    case "PATCH": {
      const patch = await readJsonBody(request);
      // Archiving (or bringing back) a form stops (or restarts) its submissions: forms.delete.
      if (isPlainObject(patch) && patch.status !== undefined) await authorize(request, "forms.delete");
      return json(formJson(await changeForm(id, patch, actorOf(user, context))));
    }
    case "DELETE": {
      const query = parseOrFail(DeleteQuerySchema, Object.fromEntries(new URL(request.url).searchParams));
      await removeForm(id, { deleteLeads: query.deleteLeads === "true" }, actorOf(user, context));
      return new Response(null, { status: 204 });
    }
    default:
      methodNotAllowed(["GET", "PATCH", "DELETE"]);
  }
});

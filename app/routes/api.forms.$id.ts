// GET, PATCH and DELETE /api/forms/:id.
import { z } from "zod";
import { deleteForm, formJson, getFormWithCounts, updateForm } from "~/models/form.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/api.server";
import { authorize } from "~/utils/auth.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

const DeleteQuerySchema = z
  .object({ deleteLeads: z.enum(["true", "false"], { error: "Use true or false." }).optional() })
  .strict();

export const loader = apiRoute(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "forms.read");
  return json(formJson(await getFormWithCounts(params.id!)));
});

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  await authorize(request, request.method === "DELETE" ? "forms.delete" : "forms.write");
  const id = params.id!;
  switch (request.method) {
    case "PATCH":
      return json(formJson(await updateForm(id, await readJsonBody(request))));
    case "DELETE": {
      const query = parseOrFail(DeleteQuerySchema, Object.fromEntries(new URL(request.url).searchParams));
      await deleteForm(id, { deleteLeads: query.deleteLeads === "true" });
      return new Response(null, { status: 204 });
    }
    default:
      methodNotAllowed(["GET", "PATCH", "DELETE"]);
  }
});

// PUT /api/forms/:id/schema: replace the field list, making a new schemaVersion.
import { replaceFormSchema } from "~/forms/form-schema-changes.server";
import { ReplaceSchemaBodySchema, formJson } from "~/forms/form.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

const SCHEMA_BODY_LIMIT = 512 * 1024;

export const loader = apiRoute(async ({ request }) => {
  await authorize(request, "forms.read");
  methodNotAllowed(["PUT"]);
});

export const action = apiRoute(async ({ request, params }: ActionFunctionArgs) => {
  await authorize(request, "forms.read");
  if (request.method !== "PUT") methodNotAllowed(["PUT"]);
  const body = parseOrFail(ReplaceSchemaBodySchema, await readJsonBody(request, SCHEMA_BODY_LIMIT));
  const form = await replaceFormSchema(params.id!, body.fields, {
    expectedSchemaVersion: body.expectedSchemaVersion,
  });
  return json(formJson(form));
});

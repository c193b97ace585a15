// GET /api/forms: one page of forms. POST /api/forms: create a form (201).
import { createForm, formJson, listForms } from "~/forms/form.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

// A whole field list fits: 100 fields with options and help texts pass 64 KiB.
const FORM_BODY_LIMIT = 512 * 1024;

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "forms.read");
  const query = Object.fromEntries(new URL(request.url).searchParams);
  const { items, nextCursor } = await listForms(query);
  return json({
    items: items.map((item) => ({
      ...item,
      createdAt: item.createdAt.toISOString(),
      updatedAt: item.updatedAt.toISOString(),
    })),
    nextCursor,
  });
});

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  await authorize(request, "forms.write");
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  const form = await createForm(await readJsonBody(request, FORM_BODY_LIMIT));
  return json(formJson(form), { status: 201, headers: { Location: `/api/forms/${form.id}` } });
});

// GET /api/saved-replies: the team's reply templates. POST {name, body}: a new one (201).
import { authorize } from "~/staff/auth.server";
import { createSavedReply, listSavedReplies } from "~/support/saved-replies.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "support.read");
  return json({ items: await listSavedReplies() });
});

export const action = apiRoute(async ({ request }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  await authorize(request, "support.write");
  const created = await createSavedReply(await readJsonBody(request));
  return json(created, { status: 201, headers: { Location: `/api/saved-replies/${created.id}` } });
});

// POST {body}: a staff note on a support request (201): shown apart from the conversation,
// never emailed (docs/api/support.md).
import { requireStaff } from "~/staff/auth.server";
import { NoteSchema } from "~/support/support-schemas";
import { addTicketNote } from "~/support/support.server";
import { apiRoute, json, methodNotAllowed, parseOrFail, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const caller = await requireStaff(request, context, "support.write");
  const { body } = parseOrFail(NoteSchema, await readJsonBody(request));
  return json({ note: await addTicketNote(params.ticket!, body, caller.user) }, 201);
});

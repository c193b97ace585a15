// POST: an email reply from a customer, posted by an email provider (JSON as in the
// spec, or SendGrid / Postmark / Mailgun native posts) behind a shared secret.
import type { ActionFunctionArgs } from "@remix-run/node";
import { readInboundEmail, requireInboundSecret } from "~/models/inbound-email.server";
import { recordInboundEmail } from "~/models/support.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/api.server";
import { clientIp } from "~/utils/request.server";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  await requireInboundSecret(request, clientIp(context));
  const email = await readInboundEmail(request);
  const { duplicate, ticketReference, messageId } = await recordInboundEmail(email);
  return json({ ticketReference, messageId, ...(duplicate ? { duplicate } : {}) }, duplicate ? 200 : 201);
});

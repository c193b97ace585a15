// POST: a customer opens a support request (public, rate limited per client address,
// with a honeypot). GET: staff list the requests.
import {
  CreateTicketSchema,
  ListTicketsSchema,
  createTicket,
  decoyTicket,
  limitSupportRequestsFor,
  limitSupportRequestsFrom,
  listTickets,
} from "~/models/support.server";
import {
  apiRoute,
  fail,
  json,
  mediaType,
  methodNotAllowed,
  parseJsonText,
  parseOrFail,
  readBodyText,
} from "~/utils/api.server";
import { requireStaff } from "~/utils/auth.server";
import { clientIp } from "~/utils/request.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request, context }: LoaderFunctionArgs) => {
  const caller = await requireStaff(request, context, "support.read");
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const query = parseOrFail(ListTicketsSchema, params);
  return json(await listTickets(query, caller.user));
});

/** JSON, or a plain HTML form post (urlencoded), so a site can post its contact form directly. */
async function readCreateBody(request: Request): Promise<Record<string, unknown>> {
  const type = mediaType(request);
  const text = await readBodyText(request);
  if (type === "application/json" || type.endsWith("+json")) {
    const body = parseJsonText(text);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      fail(422, "validation_failed", "The body must be a JSON object.", {
        details: [{ path: "(body)", message: "Expected an object." }],
      });
    }
    return body as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  fail(415, "unsupported_media_type", "Send the body as application/json.");
}

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  await limitSupportRequestsFrom(clientIp(context));
  const body = await readCreateBody(request);
  const input = parseOrFail(CreateTicketSchema, body);
  // A filled `website` field (hidden from people) is a bot: it gets a normal-looking
  // answer, so it does not learn to avoid the trap, but nothing is stored or sent.
  const website = body.website;
  if (typeof website === "string" ? website.trim() !== "" : website !== undefined && website !== null) {
    return json(await decoyTicket(), 201);
  }
  await limitSupportRequestsFor(input.email);
  const ticket = await createTicket(input);
  return json(ticket, { status: 201, headers: { Location: `/api/support-requests/${ticket.reference}` } });
});

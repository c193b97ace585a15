// POST: a customer opens a support request (public, rate limited per client address,
// with a honeypot), by JSON or by a site's plain HTML form (answered with our support page).
// GET: staff list the requests.
import { keepDraft, SUPPORT_DRAFT_SCOPE, type Draft, type DraftValues } from "~/capture/visitor-drafts.server";
import { isBrowserPost, visitorPage } from "~/capture/visitor-page.server";
import { requireStaff } from "~/staff/auth.server";
import {
  CreateTicketBodySchema,
  CreateTicketSchema,
  ListTicketsSchema,
  createTicket,
  decoyTicket,
  limitSupportRequestsFor,
  limitSupportRequestsFrom,
  listTickets,
} from "~/support/support.server";
import { DomainError, invalidFields } from "~/utils/domain-error";
import {
  apiRoute,
  domainErrorHeaders,
  json,
  mediaType,
  methodNotAllowed,
  parseJsonText,
  parseOrFail,
  readBodyText,
  statusOf,
} from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
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
      throw invalidFields([{ path: "(body)", message: "Expected an object." }], "The body must be a JSON object.");
    }
    return body as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  throw new DomainError("unsupported_media_type", "Send the body as application/json.");
}

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["GET", "POST"]);
  // A site's contact form posting here without JavaScript: the visitor gets our support
  // page (the reference, or the form again with what they typed), never our JSON.
  const browser = isBrowserPost(request) && !/json/i.test(request.headers.get("Content-Type") ?? "");
  let body: Record<string, unknown> = {};
  try {
    await limitSupportRequestsFrom(clientIp(context));
    body = await readCreateBody(request);
    const isJson = /json/.test(mediaType(request));
    const input = parseOrFail(isJson ? CreateTicketBodySchema : CreateTicketSchema, body);
    // A filled `website` field (hidden from people) is a bot: it gets a normal-looking
    // answer, so it does not learn to avoid the trap, but nothing is stored or sent.
    const website = body.website;
    if (typeof website === "string" ? website.trim() !== "" : website !== undefined && website !== null) {
      const decoy = await decoyTicket();
      return browser ? await toSupportPage({ values: {}, sent: decoy.reference }) : json(decoy, 201);
    }
    await limitSupportRequestsFor(input.email);
    const ticket = await createTicket(input);
    if (browser) return await toSupportPage({ values: {}, sent: ticket.reference });
    return json(ticket, { status: 201, headers: { Location: `/api/support-requests/${ticket.reference}` } });
  } catch (thrown) {
    if (!browser || !(thrown instanceof DomainError)) throw thrown;
    if (thrown.code === "validation_failed") {
      return await toSupportPage({ values: typedValues(body), errors: fieldErrors(thrown) });
    }
    return visitorPage(statusOf(thrown), {
      title: "Your request was not sent",
      message: thrown.message,
      referer: request.headers.get("Referer"),
      headers: domainErrorHeaders(thrown),
    });
  }
});

const FIELDS = ["email", "name", "subject", "message"] as const;

function typedValues(body: Record<string, unknown>): DraftValues {
  const values: DraftValues = {};
  for (const field of FIELDS) if (typeof body[field] === "string") values[field] = body[field];
  return values;
}

function fieldErrors(refusal: DomainError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const detail of refusal.details) {
    const key = (FIELDS as readonly string[]).includes(detail.path) ? detail.path : "_form";
    errors[key] ??= detail.message;
  }
  if (Object.keys(errors).length === 0) errors._form = refusal.message;
  return errors;
}

/** 303 to the public support page, which shows the draft (read once): the reference, or the form again. */
async function toSupportPage(draft: Draft): Promise<Response> {
  const token = await keepDraft(SUPPORT_DRAFT_SCOPE, draft);
  return new Response(null, {
    status: 303,
    headers: { Location: `/support/new?draft=${token}`, "Cache-Control": "no-store" },
  });
}

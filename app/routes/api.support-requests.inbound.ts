// POST: an email from a customer, posted by an email provider (JSON as in the spec,
// SendGrid / Postmark / Mailgun native posts, or the whole email as message/rfc822) behind
// a shared secret: a reply filed to its ticket, or (INBOUND_NEW_TICKETS) a new ticket.
// Reference: docs/api/support.md.
import { checkSecretGuess } from "~/staff/auth.server";
import { assertInboundType, readInboundEmail } from "~/support/inbound/inbound-email.server";
import { INBOUND_BODY_LIMIT } from "~/support/inbound/inbound-payload";
import { recordInboundEmail } from "~/support/inbound/support-inbound.server";
import { env } from "~/utils/env.server";
import { apiRoute, fail, json, methodNotAllowed, readBodyShared } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  await requireInboundSecret(request, clientIp(context));
  const contentType = request.headers.get("Content-Type") ?? "";
  assertInboundType(contentType); // before reading up to 25 MB
  const email = await readInboundEmail(await readBodyShared(request, INBOUND_BODY_LIMIT), contentType);
  const { duplicate, created, ticketReference, messageId } = await recordInboundEmail(email);
  return json(
    { ticketReference, messageId, ...(duplicate ? { duplicate } : {}), ...(created ? { created } : {}) },
    duplicate ? 200 : 201,
  );
});

/** The password of an HTTP Basic header (the user name is ignored), or undefined. */
function basicPassword(authorization: string): string | undefined {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization)?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? undefined : decoded.slice(colon + 1);
}

/**
 * 503 while INBOUND_SECRET is unset; 401 unless `x-inbound-secret`, a Bearer token or
 * an HTTP Basic password matches (providers that cannot add a header put the secret in
 * the URL: https://inbound:SECRET@host/...). Wrong secrets are limited per address (429);
 * the right one is accepted from any address, so nobody can lock the provider out.
 */
async function requireInboundSecret(request: Request, ip: string): Promise<void> {
  if (!env.INBOUND_SECRET) {
    fail(503, "not_configured", "The inbound email webhook is not configured (INBOUND_SECRET is unset).");
  }
  const authorization = request.headers.get("Authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  const given = request.headers.get("x-inbound-secret") ?? bearer ?? basicPassword(authorization);
  if (given === undefined || !(await checkSecretGuess(ip, given, env.INBOUND_SECRET, "inbound secret"))) {
    fail(
      401,
      "unauthorized",
      "Send the inbound secret in x-inbound-secret, Authorization: Bearer, or as the HTTP Basic password.",
      { headers: { "WWW-Authenticate": 'Basic realm="inbound"' } },
    );
  }
}

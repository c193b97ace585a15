// The support desk's API from a test: its two secrets as headers, and a ticket opened
// the way a customer's web form opens one.
import { expect } from "vitest";
import type { ApiClient } from "./http";

/** The staff API key (SUPPORT_API_KEY) as an Authorization header. */
export const bearer = (key = process.env.SUPPORT_API_KEY!) => ({ Authorization: `Bearer ${key}` });

/** The shared secret an email provider sends with each inbound email. */
export const inboundSecret = () => ({ "x-inbound-secret": process.env.INBOUND_SECRET! });

/** Opens a ticket through POST /api/support-requests (a 201 expected). */
export async function openTicket(call: ApiClient, request: { email: string; subject: string; message: string }) {
  const res = await call("POST", "/api/support-requests", request);
  expect(res.status, res.text).toBe(201);
  return { ...(res.body as { id: string; reference: string }), email: request.email, subject: request.subject };
}

let opened = 0;

/**
 * Opens a ticket from a customer of its own (customer<n>@example.com, subject "Help <n>"):
 * no two tests share a thread, a reply address or a per-recipient limit.
 */
export function newTicket(call: ApiClient) {
  opened++;
  return openTicket(call, { email: `customer${opened}@example.com`, subject: `Help ${opened}`, message: "Hello." });
}

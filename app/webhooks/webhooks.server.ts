// Outbound webhook endpoints (docs/api/webhooks.md): saved with a checked destination and
// a signing secret shown once; rotation keeps the previous secret signing for 24 hours,
// so receivers can switch without losing a delivery.
import { randomBytes } from "node:crypto";
import { db, type Prisma } from "~/storage/db.server";
import { DomainError, invalidFields, parseOrThrow } from "~/utils/domain-error";
import { kickWebhooks } from "./webhook-delivery.server";
import { checkEndpointUrl } from "./webhook-destination.server";
import { invalidateSubscriptions, newWebhookEvent, writeWebhookEvent } from "./webhook-events.server";
import { CreateWebhookSchema, UpdateWebhookSchema, type WebhookEventType } from "./webhook-schemas";
import type { auditor } from "../audit/audit.server";

/** The acting staff user's audit recorder: each change below writes its own entry. */
type Audit = ReturnType<typeof auditor>;

/** How long the secret before a rotation still signs. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60_000;

/** `whsec_` and base64 of 32 random bytes, as the Standard Webhooks libraries take it. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

const endpointSelect = {
  id: true,
  url: true,
  description: true,
  kind: true,
  events: true,
  formId: true,
  disabledAt: true,
  disabledReason: true,
  lastSuccessAt: true,
  failingSince: true,
  previousSecretUntil: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Prisma.WebhookEndpointSelect;

type EndpointRow = Prisma.WebhookEndpointGetPayload<{ select: typeof endpointSelect }>;

/** An endpoint as the API shows it (never its secret, except once: see createWebhook). */
export function webhookJson(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    kind: row.kind,
    events: row.events as WebhookEventType[],
    formId: row.formId,
    enabled: row.disabledAt === null,
    disabledAt: row.disabledAt?.toISOString() ?? null,
    disabledReason: row.disabledReason,
    /** The last attempt that got a 2xx. */
    lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
    /** Since when every attempt has failed; null while the last one succeeded. */
    failingSince: row.failingSince?.toISOString() ?? null,
    previousSecretExpiresAt:
      row.previousSecretUntil && row.previousSecretUntil > new Date() ? row.previousSecretUntil.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type WebhookJson = ReturnType<typeof webhookJson>;

function notFound(id: string): DomainError {
  return new DomainError("not_found", `No webhook endpoint with id ${JSON.stringify(id)}.`);
}

async function checkFormId(formId: string | null | undefined): Promise<void> {
  if (!formId) return;
  const form = await db.form.findUnique({ where: { id: formId }, select: { id: true } });
  if (!form) throw invalidFields([{ path: "formId", message: `No form with id ${JSON.stringify(formId)}.` }]);
}

/** Creates an endpoint: its JSON and, this once, its signing secret. Audited as `webhook.create`. */
export async function createWebhook(input: unknown, audit: Audit): Promise<WebhookJson & { secret: string }> {
  const value = parseOrThrow(CreateWebhookSchema, input);
  const url = await checkEndpointUrl(value.url);
  await checkFormId(value.formId);
  const secret = newSigningSecret();
  const row = await db.webhookEndpoint.create({
    data: { ...value, url, secret, events: value.events },
    select: endpointSelect,
  });
  invalidateSubscriptions();
  const created = webhookJson(row);
  await audit("webhook.create", `webhook:${created.id}`, { url: created.url, events: created.events });
  return { ...created, secret };
}

export async function listWebhooks(): Promise<WebhookJson[]> {
  const rows = await db.webhookEndpoint.findMany({
    select: endpointSelect,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
  });
  return rows.map(webhookJson);
}

export async function getWebhook(id: string): Promise<WebhookJson> {
  const row = await db.webhookEndpoint.findUnique({ where: { id }, select: endpointSelect });
  if (!row) throw notFound(id);
  return webhookJson(row);
}

/** Changes an endpoint's settings; audited as `webhook.update` naming the fields given. */
export async function updateWebhook(id: string, input: unknown, audit: Audit): Promise<WebhookJson> {
  const updated = await saveEndpoint(id, input);
  await audit("webhook.update", `webhook:${id}`, { fields: Object.keys(input as object) });
  return updated;
}

/** The dashboard's enable and disable buttons; audited as `webhook.update` saying which. */
export async function setWebhookEnabled(id: string, enabled: boolean, audit: Audit): Promise<WebhookJson> {
  const updated = await saveEndpoint(id, { enabled });
  await audit("webhook.update", `webhook:${id}`, { enabled });
  return updated;
}

async function saveEndpoint(id: string, input: unknown): Promise<WebhookJson> {
  const { enabled, url, ...value } = parseOrThrow(UpdateWebhookSchema, input);
  const data: Prisma.WebhookEndpointUpdateInput = { ...value };
  if (url !== undefined) data.url = await checkEndpointUrl(url);
  if (value.formId !== undefined) {
    await checkFormId(value.formId);
    delete (data as { formId?: unknown }).formId;
    data.form = value.formId ? { connect: { id: value.formId } } : { disconnect: true };
  }
  // Enabled again: its failures so far no longer count towards disabling it.
  if (enabled === true) Object.assign(data, { disabledAt: null, disabledReason: null, failingSince: null });
  if (enabled === false) Object.assign(data, { disabledAt: new Date(), disabledReason: "Disabled by staff." });
  try {
    const row = await db.webhookEndpoint.update({ where: { id }, data, select: endpointSelect });
    invalidateSubscriptions();
    return webhookJson(row);
  } catch (error) {
    if ((error as { code?: string }).code === "P2025") throw notFound(id);
    throw error;
  }
}

export async function deleteWebhook(id: string, audit: Audit): Promise<void> {
  const { count } = await db.webhookEndpoint.deleteMany({ where: { id } });
  if (count === 0) throw notFound(id);
  invalidateSubscriptions();
  await audit("webhook.delete", `webhook:${id}`);
}

/**
 * A new secret; the one it replaces keeps signing for 24 hours, during which another rotation
 * is refused (409). Conditional on the secret
 * read, so of two rotations at once one wins and the other is told (409), rather than a
 * secret handed out that no delivery is signed with.
 */
export async function rotateWebhookSecret(
  id: string,
  audit: Audit,
  now = new Date(),
): Promise<WebhookJson & { secret: string }> {
  const current = await db.webhookEndpoint.findUnique({
    where: { id },
    select: { secret: true, previousSecretUntil: true },
  });
  if (!current) throw notFound(id);
  // A second rotation would drop the secret the receiver may still use (and a reload of the
  // dashboard's answer would send one): one rotation at a time.
  if (current.previousSecretUntil && current.previousSecretUntil > now) {
    throw new DomainError(
      "conflict",
      `The secret was rotated less than 24 hours ago; its previous secret signs until ${current.previousSecretUntil.toISOString()}. Rotate again after that.`,
    );
  }
  const secret = newSigningSecret();
  const { count } = await db.webhookEndpoint.updateMany({
    where: { id, secret: current.secret },
    data: {
      secret,
      previousSecret: current.secret,
      previousSecretUntil: new Date(now.getTime() + PREVIOUS_SECRET_MS),
    },
  });
  if (count === 0) {
    if (!(await db.webhookEndpoint.count({ where: { id } }))) throw notFound(id);
    throw new DomainError("conflict", "The secret was rotated at the same time by someone else: read it again.");
  }
  await audit("webhook.rotate_secret", `webhook:${id}`);
  return { ...(await getWebhook(id)), secret };
}

// ---------------------------------------------------------------------------
// Deliveries

const DELIVERY_PAGE = 50;

/** The newest deliveries of an endpoint, each with its attempts (oldest first). */
export async function listDeliveries(endpointId: string) {
  await getWebhook(endpointId);
  const rows = await db.webhookDelivery.findMany({
    where: { endpointId },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: DELIVERY_PAGE,
    select: {
      id: true,
      status: true,
      attempts: true,
      nextAttemptAt: true,
      lastStatusCode: true,
      createdAt: true,
      event: { select: { id: true, type: true } },
      attemptLog: {
        orderBy: { createdAt: "asc" },
        select: { createdAt: true, statusCode: true, durationMs: true, responseBody: true, error: true },
      },
    },
  });
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event.id,
    eventType: row.event.type,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastStatusCode: row.lastStatusCode,
    createdAt: row.createdAt.toISOString(),
    attempts: row.attemptLog.map(({ createdAt, ...attempt }) => ({ at: createdAt.toISOString(), ...attempt })),
  }));
}

/** Queues a delivery again now (a failed one gets one more attempt; its webhook-id stays). */
export async function retryDelivery(endpointId: string, deliveryId: string): Promise<void> {
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, endpointId, status: { in: ["failed", "pending", "succeeded"] } },
    data: { status: "pending", nextAttemptAt: new Date(), lockedUntil: null },
  });
  if (count === 0) {
    const exists = await db.webhookDelivery.count({ where: { id: deliveryId, endpointId } });
    if (exists === 0) throw new DomainError("not_found", `No delivery with id ${JSON.stringify(deliveryId)}.`);
    // Being delivered right now: nothing to do.
  }
  kickWebhooks();
}

/** A `ping` event to this endpoint alone, through the normal delivery path. */
export async function sendTestPing(endpointId: string): Promise<{ eventId: string; deliveryId: string }> {
  const endpoint = await getWebhook(endpointId);
  const event = newWebhookEvent("ping", { endpointId: endpoint.id, message: "A test event from Lead Capture." }, [
    endpoint.id,
  ]);
  await writeWebhookEvent(event);
  kickWebhooks();
  return { eventId: event.id, deliveryId: event.deliveries[0].id };
}

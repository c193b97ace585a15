// The storage of the process, chosen once at start by DATABASE_URL (docs/decisions/021):
// for each table that needs SQL of its own, the implementation for this database.
import { isPostgres } from "~/storage/db.server";
import {
  postgresAttachmentChunkStore,
  sqliteAttachmentChunkStore,
  type AttachmentChunkStore,
} from "./attachment-chunk-store.server";
import { postgresFormViewStore, sqliteFormViewStore, type FormViewStore } from "./form-view-store.server";
import {
  postgresLeadFileChunkStore,
  sqliteLeadFileChunkStore,
  type LeadFileChunkStore,
} from "./lead-file-store.server";
import { postgresLeadLabelStore, sqliteLeadLabelStore, type LeadLabelStore } from "./leads/lead-label-store.server";
import { postgresLeadStore } from "./leads/lead-store.postgres.server";
import { sqliteLeadStore } from "./leads/lead-store.sqlite.server";
import { postgresQueueStore, sqliteQueueStore, type Queue, type QueueStore } from "./queue-store.server";
import { postgresSessionStore, sqliteSessionStore, type SessionStore } from "./session-store.server";
import {
  postgresWebhookFanOutStore,
  sqliteWebhookFanOutStore,
  type WebhookFanOutStore,
} from "./webhooks/webhook-fan-out-store.server";
import {
  postgresWebhookOutcomeStore,
  sqliteWebhookOutcomeStore,
  type WebhookOutcomeStore,
} from "./webhooks/webhook-outcome-store.server";
import type { LeadStore } from "./leads/lead-store";

export const leadStore: LeadStore = isPostgres ? postgresLeadStore : sqliteLeadStore;
export const leadLabelStore: LeadLabelStore = isPostgres ? postgresLeadLabelStore : sqliteLeadLabelStore;
export const sessionStore: SessionStore = isPostgres ? postgresSessionStore : sqliteSessionStore;
const queueStore = (queue: Queue): QueueStore => (isPostgres ? postgresQueueStore(queue) : sqliteQueueStore(queue));
// Mail to customers (it has a ticket) before staff notifications: a flood of lead emails
// cannot hold back an acknowledgement or a reply.
export const outboxStore = queueStore({
  table: "OutboxEmail",
  claimedStatus: "sending",
  first: `"ticketId" IS NOT NULL`,
});
export const webhookStore = queueStore({ table: "WebhookDelivery", claimedStatus: "delivering" });
export const webhookFanOutStore: WebhookFanOutStore = isPostgres
  ? postgresWebhookFanOutStore
  : sqliteWebhookFanOutStore;
export const webhookOutcomeStore: WebhookOutcomeStore = isPostgres
  ? postgresWebhookOutcomeStore
  : sqliteWebhookOutcomeStore;
export const attachmentChunkStore: AttachmentChunkStore = isPostgres
  ? postgresAttachmentChunkStore
  : sqliteAttachmentChunkStore;

export const leadFileChunkStore: LeadFileChunkStore = isPostgres
  ? postgresLeadFileChunkStore
  : sqliteLeadFileChunkStore;

export const formViewStore: FormViewStore = isPostgres ? postgresFormViewStore : sqliteFormViewStore;

export type { ViewCount } from "./form-view-store.server";
export type { LeadRow, LeadStore, NewLead } from "./leads/lead-store";

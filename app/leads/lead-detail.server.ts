// A stored lead as staff and webhooks see it: its summary in a list, its detail (labelled
// by the schema version it was stored under), its status as one value. The lead's shape is
// built once, where its webhook events are built (app/webhooks/event-bodies.server.ts,
// decision 045); its columns are app/storage/leads/lead-detail-store.server.ts. The leads area,
// the notifications and the components read it from here.
import type { LeadDetail } from "../webhooks/event-bodies.server";
import type { LeadStatusValue } from "./lead-filters.server";

type Stage = Exclude<LeadStatusValue, "spam">;

/** A lead's status as one value: its stage, or `spam` while the flag is set. */
export const statusOf = (lead: { status: string; isSpam: boolean }): LeadStatusValue =>
  lead.isSpam ? "spam" : (lead.status as Stage);

/** A lead as a page of leads shows it. */
export type LeadSummary = Omit<
  LeadDetail,
  "fields" | "referrerUrl" | "landingPageUrl" | "userAgent" | "confirmedAt" | "consents" | "files"
>;

export {
  leadDetailOf,
  utmOf,
  type Consent,
  type LeadDetail,
  type LeadOwner,
  type Utm,
} from "../webhooks/event-bodies.server";

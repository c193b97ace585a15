// The storage of the process, chosen once at start by DATABASE_URL (docs/decisions/021).
import { isPostgres } from "~/utils/db.server";
import { postgresLeadStore } from "./lead-store.postgres.server";
import { sqliteLeadStore } from "./lead-store.sqlite.server";
import type { LeadStore } from "./lead-store";

export const leadStore: LeadStore = isPostgres ? postgresLeadStore : sqliteLeadStore;

export type { LeadRow, LeadStore, NewLead } from "./lead-store";

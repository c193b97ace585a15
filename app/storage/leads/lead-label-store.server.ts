// The tags and owners of a page of leads, read through the driver (decision 003): the
// export asks for them with every page of 500 leads and the lead list with every request,
// where a Prisma query per page cost more than reading the page itself (decision 030,
// "Tags and owners beside a page"). One implementation per database (decision 021).
import { idleSqlite, postgresPool, prepared } from "~/storage/db.server";

export type LeadTagRow = { leadId: string; tag: string };
export type LeadOwnerRow = { id: string; name: string | null; email: string };

export interface LeadLabelStore {
  /** The tags of the leads among `leadIds`, in tag order (as `ORDER BY "tag"` sorts them). */
  tags(leadIds: readonly string[]): Promise<LeadTagRow[]>;
  /** The users among `ids`: id, name and email. */
  users(ids: readonly string[]): Promise<LeadOwnerRow[]>;
}

// The ids as one JSON array parameter: one prepared statement whatever the page's length,
// and no limit on bound values. Each id is looked up in the primary key.
const SQLITE_TAGS = `SELECT "leadId", "tag" FROM "LeadTag" WHERE "leadId" IN (SELECT "value" FROM json_each(?)) ORDER BY "tag"`;
const SQLITE_USERS = `SELECT "id", "name", "email" FROM "User" WHERE "id" IN (SELECT "value" FROM json_each(?))`;

export const sqliteLeadLabelStore: LeadLabelStore = {
  async tags(leadIds) {
    if (leadIds.length === 0) return [];
    return prepared(await idleSqlite(), SQLITE_TAGS).all(JSON.stringify(leadIds)) as LeadTagRow[];
  },
  async users(ids) {
    if (ids.length === 0) return [];
    return prepared(await idleSqlite(), SQLITE_USERS).all(JSON.stringify(ids)) as LeadOwnerRow[];
  },
};

export const postgresLeadLabelStore: LeadLabelStore = {
  async tags(leadIds) {
    if (leadIds.length === 0) return [];
    const result = await postgresPool().query<LeadTagRow>(
      `SELECT "leadId", "tag" FROM "LeadTag" WHERE "leadId" = ANY($1::text[]) ORDER BY "tag"`,
      [leadIds],
    );
    return result.rows;
  },
  async users(ids) {
    if (ids.length === 0) return [];
    const result = await postgresPool().query<LeadOwnerRow>(
      `SELECT "id", "name", "email" FROM "User" WHERE "id" = ANY($1::text[])`,
      [ids],
    );
    return result.rows;
  },
};

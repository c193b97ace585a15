// Adding counted form views to the FormView table (app/capture/views/form-views.server.ts). One
// implementation per database (decision 021).
//
// Each row is added to what is stored (ON CONFLICT ... views + excluded.views), so several
// instances flushing into one database add up rather than overwrite each other. A row is
// written only while its form exists (INSERT ... SELECT ... FROM "Form"), so views counted
// before a form was deleted are dropped rather than refused by the foreign key.
//
// On SQLite the write is one synchronous better-sqlite3 transaction on the shared connection
// (microseconds per row, nothing awaited inside): an interactive Prisma transaction would
// hold the one connection and stall lead commits (decision 026). On PostgreSQL it is one
// statement on the pool, all rows passed as arrays.
//
// FormFunnel (how far visitors went: started, step n reached; decision 059) is written the
// same way, its stage one more column of the key.
import {
  idleSqlite,
  isForeignKeyViolation,
  postgresPool,
  prepared,
  type FormFunnel,
  type FormView,
} from "~/storage/db.server";

/** A count of views to add: the table's key and how many views. */
export type ViewCount = Pick<FormView, "formId" | "day" | "utmSource" | "utmCampaign" | "referrerHost" | "views">;
/** A count of visitors who reached a stage, to add: FormFunnel's key and how many. */
export type FunnelCount = Pick<
  FormFunnel,
  "formId" | "day" | "utmSource" | "utmCampaign" | "referrerHost" | "stage" | "visitors"
>;

export interface FormViewStore {
  /** Adds each count to its row (created at 0 when absent); forms that are gone are skipped. */
  add(counts: ViewCount[]): Promise<void>;
  /** The same for the funnel's stages. */
  addFunnel(counts: FunnelCount[]): Promise<void>;
}

type Keyed = Omit<ViewCount, "views"> & { stage?: number };

/** Rows in the order both databases lock them, so two instances' flushes cannot deadlock. */
function ordered<T extends Keyed>(counts: T[]): T[] {
  const key = (c: T) => [c.formId, c.day, c.utmSource, c.utmCampaign, c.referrerHost, c.stage ?? 0];
  return [...counts].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
  });
}

// SQLite needs a WHERE in INSERT ... SELECT before ON CONFLICT (its parser's ambiguity).
const SQLITE_ADD = `INSERT INTO "FormView" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "views")
  SELECT "id", ?, ?, ?, ?, ? FROM "Form" WHERE "id" = ?
  ON CONFLICT ("formId", "day", "utmSource", "utmCampaign", "referrerHost")
  DO UPDATE SET "views" = "FormView"."views" + excluded."views"`;

const SQLITE_ADD_FUNNEL = `INSERT INTO "FormFunnel" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage", "visitors")
  SELECT "id", ?, ?, ?, ?, ?, ? FROM "Form" WHERE "id" = ?
  ON CONFLICT ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage")
  DO UPDATE SET "visitors" = "FormFunnel"."visitors" + excluded."visitors"`;

export const sqliteFormViewStore: FormViewStore = {
  async add(counts) {
    if (counts.length === 0) return;
    const connection = await idleSqlite();
    const statement = prepared(connection, SQLITE_ADD);
    connection.transaction(() => {
      for (const c of counts) statement.run(c.day, c.utmSource, c.utmCampaign, c.referrerHost, c.views, c.formId);
    })();
  },
  async addFunnel(counts) {
    if (counts.length === 0) return;
    const connection = await idleSqlite();
    const statement = prepared(connection, SQLITE_ADD_FUNNEL);
    connection.transaction(() => {
      for (const c of counts) {
        statement.run(c.day, c.utmSource, c.utmCampaign, c.referrerHost, c.stage, c.visitors, c.formId);
      }
    })();
  },
};

const POSTGRES_ADD = `INSERT INTO "FormView" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "views")
  SELECT f."id", v."day", v."utmSource", v."utmCampaign", v."referrerHost", v."views"
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[])
    AS v("formId", "day", "utmSource", "utmCampaign", "referrerHost", "views")
  JOIN "Form" f ON f."id" = v."formId"
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT ("formId", "day", "utmSource", "utmCampaign", "referrerHost")
  DO UPDATE SET "views" = "FormView"."views" + excluded."views"`;

const POSTGRES_ADD_FUNNEL = `INSERT INTO "FormFunnel" ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage", "visitors")
  SELECT f."id", v."day", v."utmSource", v."utmCampaign", v."referrerHost", v."stage", v."visitors"
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[])
    AS v("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage", "visitors")
  JOIN "Form" f ON f."id" = v."formId"
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT ("formId", "day", "utmSource", "utmCampaign", "referrerHost", "stage")
  DO UPDATE SET "visitors" = "FormFunnel"."visitors" + excluded."visitors"`;

/** One statement on the pool; a form deleted after the statement read "Form" but before its
 * foreign key was checked: once more, and the statement no longer sees it. */
async function postgresAdd(sql: string, params: unknown[][]): Promise<void> {
  try {
    await postgresPool().query(sql, params);
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    await postgresPool().query(sql, params);
  }
}

const keyColumns = (rows: Keyed[]) => [
  rows.map((c) => c.formId),
  rows.map((c) => c.day),
  rows.map((c) => c.utmSource),
  rows.map((c) => c.utmCampaign),
  rows.map((c) => c.referrerHost),
];

export const postgresFormViewStore: FormViewStore = {
  async add(counts) {
    if (counts.length === 0) return;
    const rows = ordered(counts);
    await postgresAdd(POSTGRES_ADD, [...keyColumns(rows), rows.map((c) => c.views)]);
  },
  async addFunnel(counts) {
    if (counts.length === 0) return;
    const rows = ordered(counts);
    await postgresAdd(POSTGRES_ADD_FUNNEL, [
      ...keyColumns(rows),
      rows.map((c) => c.stage),
      rows.map((c) => c.visitors),
    ]);
  },
};

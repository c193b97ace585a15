// The statements that find one person's rows by their email address where no column holds it
// alone (decision 069): text that contains it (a webhook body, an email's text, an audit
// entry's details), compared in lower case. instr/strpos rather than LIKE: an address may hold
// `_` or `%`, which LIKE would read as wildcards.
import { isPostgres, Prisma } from "~/storage/db.server";

/** `column` contains `needle` (given in lower case), whatever the case of the column's text. */
export function containsLower(column: string, needle: string): Prisma.Sql {
  const quoted = Prisma.raw(`"${column}"`);
  return isPostgres
    ? Prisma.sql`strpos(lower(${quoted}), ${needle}) > 0`
    : Prisma.sql`instr(lower(${quoted}), ${needle}) > 0`;
}

/** `column` is `address` (given in lower case), whatever the case it was stored in. */
export function equalsLower(column: string, address: string): Prisma.Sql {
  return Prisma.sql`lower(${Prisma.raw(`"${column}"`)}) = ${address}`;
}

/** The ids of the rows of `table` that match `where`. */
export async function idsWhere(
  client: Prisma.TransactionClient,
  table: string,
  where: Prisma.Sql,
  key = "id",
): Promise<string[]> {
  const rows = await client.$queryRaw<Array<{ key: string }>>`
    SELECT ${Prisma.raw(`"${key}"`)} AS "key" FROM ${Prisma.raw(`"${table}"`)} WHERE ${where}`;
  return rows.map((row) => row.key);
}

/** Deletes the rows of `table` matching `where`; how many. */
export function deleteWhere(client: Prisma.TransactionClient, table: string, where: Prisma.Sql): Promise<number> {
  return client.$executeRaw`DELETE FROM ${Prisma.raw(`"${table}"`)} WHERE ${where}`;
}

/** Replaces every occurrence of `needle` (any case) in `text` by `replacement`. */
export function replaceLower(text: string, needle: string, replacement: string): string {
  const pattern = new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "giu");
  return text.replace(pattern, () => replacement);
}

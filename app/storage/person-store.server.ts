// The statements that find one person's rows by their email address where no column holds it
// alone (decision 069): text that names it (a webhook body, an email's text, an audit entry's
// details), compared in lower case, the address whole. instr/strpos rather than LIKE: an address may hold
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

/**
 * `address` wherever it stands whole in a text, any case: not inside a longer address, so that
 * `bob@example.com` is not found in `notbob@example.com` or `bob@example.com.au` (a character an
 * address may hold just before it, or just after it one more of its own or a dot going on).
 */
function addressPattern(address: string): RegExp {
  const escaped = address.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // A JSON escape just before it (`\\n`, `\\t`...) ends with a letter but is no part of an address.
  const before = "(?:(?<=\\\\[nrtbf])|(?<![\\p{L}\\p{N}._%+-]))";
  return new RegExp(`${before}${escaped}(?![\\p{L}\\p{N}_%+-]|\\.[\\p{L}\\p{N}])`, "giu");
}

/** Whether `text` names `address` (lower case) as a whole address. */
export function namesAddress(text: string | null, address: string): boolean {
  return text !== null && addressPattern(address).test(text);
}

/** Replaces every whole occurrence of `address` (any case) in `text` by `replacement`. */
export function replaceAddress(text: string, address: string, replacement: string): string {
  return text.replace(addressPattern(address), () => replacement);
}

/**
 * The keys of the rows of `table` one of whose `columns` names `address` (lower case) as a whole
 * address: found by containsLower, then read and kept only where the address stands whole.
 */
export async function keysNaming(
  client: Prisma.TransactionClient,
  table: string,
  columns: readonly string[],
  address: string,
  key = "id",
): Promise<string[]> {
  const selected = Prisma.join(columns.map((column) => Prisma.raw(`"${column}" AS "${column}"`)));
  const where = Prisma.join(
    columns.map((column) => containsLower(column, address)),
    " OR ",
  );
  const rows = await client.$queryRaw<Array<Record<string, string | null>>>`
    SELECT ${Prisma.raw(`"${key}"`)} AS "key", ${selected} FROM ${Prisma.raw(`"${table}"`)} WHERE ${where}`;
  return rows.filter((row) => columns.some((column) => namesAddress(row[column], address))).map((row) => row.key!);
}

/** The support messages a customer sent from `address` (lower case), with their requests. */
export function customerMessagesFrom(
  client: Prisma.TransactionClient,
  address: string,
): Promise<Array<{ id: string; ticketId: string }>> {
  return client.$queryRaw`
    SELECT "id", "ticketId" FROM "TicketMessage" WHERE "author" = 'customer' AND ${equalsLower("fromEmail", address)}`;
}

// A file field's cell in an export (decision 064): each file's name with its dashboard link,
// so a spreadsheet row leads to the files. Read a page at a time, only when a column is a
// file field's.
import { db } from "~/storage/db.server";
import { env } from "~/utils/env.server";

export type ExportFile = { id: string; field: string; filename: string };

const APP_URL = env.APP_URL.replace(/\/+$/, "");

/** The files of a page of leads, by lead id. */
export async function filesOfLeads(ids: readonly string[]): Promise<Map<string, ExportFile[]>> {
  const rows = await db.leadFile.findMany({
    where: { leadId: { in: [...ids] } },
    select: { id: true, leadId: true, field: true, filename: true },
    orderBy: [{ position: "asc" }, { id: "asc" }],
  });
  const byLead = new Map<string, ExportFile[]>();
  for (const { leadId, ...file } of rows) {
    if (!leadId) continue;
    const list = byLead.get(leadId) ?? [];
    list.push(file);
    byLead.set(leadId, list);
  }
  return byLead;
}

/** `name (link), name (link)` for one field's files; the stored names when none is linked. */
export function fileCellText(leadId: string, field: string, files: readonly ExportFile[] | undefined): string {
  return (files ?? [])
    .filter((file) => file.field === field)
    .map((file) => `${file.filename} (${APP_URL}/leads/${leadId}/files/${file.id})`)
    .join(", ");
}

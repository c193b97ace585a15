// The names a page of audit entries speaks of (staff, forms, leads, webhooks, tokens), read in
// one batched query per kind, never one per entry. Entries have no foreign keys, so a target
// may be gone: a deleted webhook's URL is still found in its creation entry.
import { db } from "~/storage/db.server";
import { personName } from "../leads/lead-name";
import { targetId, type AuditNames, type DescribedEntry } from "./audit-sentences";
import type { LeadData } from "../forms/schema/form-schema";

type Ids = { people: Set<string>; forms: Set<string>; leads: Set<string>; webhooks: Set<string>; tokens: Set<string> };

function idsIn(entries: readonly DescribedEntry[]): Ids {
  const ids: Ids = { people: new Set(), forms: new Set(), leads: new Set(), webhooks: new Set(), tokens: new Set() };
  const add = (set: Set<string>, id: unknown) => typeof id === "string" && id && set.add(id);
  for (const entry of entries) {
    add(ids.people, entry.actor?.id);
    add(ids.people, targetId(entry.target, "user"));
    add(ids.forms, targetId(entry.target, "form"));
    add(ids.leads, targetId(entry.target, "lead"));
    add(ids.webhooks, targetId(entry.target, "webhook"));
    add(ids.tokens, targetId(entry.target, "token"));
    const filters = entry.details.filters as Record<string, unknown> | undefined;
    add(ids.forms, filters?.formId);
    if (entry.action === "lead.bulk" && entry.details.action === "assign") add(ids.people, entry.details.value);
  }
  return ids;
}

const pairs = <T>(rows: T[], entry: (row: T) => [string, string | null]) =>
  Object.fromEntries(rows.map(entry).filter((pair): pair is [string, string] => Boolean(pair[1])));

/** Names for every id the entries mention; an id with no row is left out (the sentence says "deleted"). */
export async function auditNames(entries: readonly DescribedEntry[]): Promise<AuditNames> {
  const ids = idsIn(entries);
  const some = (set: Set<string>) => ({ in: [...set] });
  const [people, forms, leads, webhooks, created, tokens] = await Promise.all([
    db.user.findMany({ where: { id: some(ids.people) }, select: { id: true, name: true, email: true } }),
    db.form.findMany({ where: { id: some(ids.forms) }, select: { id: true, name: true } }),
    db.lead.findMany({
      where: { id: some(ids.leads) },
      select: { id: true, data: true, email: true, form: { select: { fields: true } } },
    }),
    db.webhookEndpoint.findMany({ where: { id: some(ids.webhooks) }, select: { id: true, url: true } }),
    db.auditEntry.findMany({
      where: { action: "webhook.create", target: { in: [...ids.webhooks].map((id) => `webhook:${id}`) } },
      select: { target: true, details: true },
    }),
    db.apiToken.findMany({ where: { id: some(ids.tokens) }, select: { id: true, name: true } }),
  ]);
  const createdUrls = pairs(created, (row) => {
    const details = JSON.parse(row.details) as { url?: unknown };
    return [targetId(row.target, "webhook") ?? "", typeof details.url === "string" ? details.url : null];
  });
  return {
    people: pairs(people, (user) => [user.id, user.name?.trim() || user.email]),
    forms: pairs(forms, (form) => [form.id, form.name]),
    leads: pairs(leads, (lead) => [
      lead.id,
      personName(lead.data as LeadData, lead.form.fields as { key: string; label: string }[]) ?? lead.email,
    ]),
    webhooks: { ...createdUrls, ...pairs(webhooks, (hook) => [hook.id, hook.url]) },
    tokens: pairs(tokens, (token) => [token.id, token.name]),
  };
}

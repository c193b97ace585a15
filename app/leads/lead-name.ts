// Who a lead is, in words: the name the person typed, for page titles and headings.
// Forms name their fields freely, so the name is found by the usual keys and labels
// ("name", "full_name", "Your name", or first and last name); none found: null.
import type { LeadData, LeadValue } from "../forms/schema/form-schema";

type NamedField = { key: string; label: string };

const FULL = /^(full[ _-]?name|name|your[ _-]?name|contact[ _-]?name)$/i;
const FIRST = /^(first[ _-]?name|given[ _-]?name|forename)$/i;
const LAST = /^(last[ _-]?name|family[ _-]?name|surname)$/i;
const MAX = 80;

function text(value: LeadValue | undefined): string {
  return typeof value === "string" ? value.trim() : "";
}

function valueOf(data: LeadData, fields: readonly NamedField[], pattern: RegExp): string {
  const field = fields.find((candidate) => pattern.test(candidate.key) || pattern.test(candidate.label.trim()));
  return field ? text(data[field.key]) : "";
}

/** The person's name as typed into the lead's form, or null when the form asks none. */
export function personName(data: LeadData, fields: readonly NamedField[]): string | null {
  const full =
    valueOf(data, fields, FULL) ||
    [FIRST, LAST]
      .map((p) => valueOf(data, fields, p))
      .filter(Boolean)
      .join(" ");
  const name = full.replace(/\s+/g, " ");
  if (!name) return null;
  return name.length > MAX ? `${name.slice(0, MAX - 1)}…` : name;
}

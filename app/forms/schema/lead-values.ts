// What is read off a lead's answers for storage: its address and its search text.
import type { FormField, LeadData } from "./form-schema";

/** The lead's address: the value of the first email field that has one, lower-cased. */
export function leadEmail(data: LeadData, fields: readonly FormField[]): string | null {
  for (const field of fields) {
    const value = field.type === "email" ? data[field.key] : undefined;
    if (typeof value === "string" && value !== "") return value.toLowerCase().slice(0, 320);
  }
  return null;
}

/** The text a lead is found by in `q` searches: its values, lower-cased. */
export function leadSearchText(data: LeadData): string {
  return Object.values(data)
    .map((value) => (Array.isArray(value) ? value.join(" ") : String(value)))
    .join(" \u0001 ")
    .toLowerCase()
    .slice(0, 20_000);
}

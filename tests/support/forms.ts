// A form for a test: stored straight in the database as the forms API stores one (fields
// and settings through their schemas, version 1 beside it), or created through the API.
// (Forms with a version history for the leads tests: createForm in leads.ts.)
import { expect } from "vitest";
import { FieldsSchema, FormSettingsSchema } from "~/forms/schema/form-schema";
import { db } from "~/storage/db.server";
import type { ApiClient } from "./http";

/** The fields most tests submit: a required name and a required email. */
export const NAME_AND_EMAIL = [
  { key: "name", label: "Name", type: "text", required: true },
  { key: "email", label: "Email", type: "email", required: true },
];

/**
 * A form in three steps: who (email, reason), the company (sales only: the step is skipped for
 * support), anything else; a hidden plan a link may prefill.
 */
export const THREE_STEPS = {
  fields: [
    { key: "plan", label: "Plan", type: "hidden" },
    { key: "email", label: "Email", type: "email", required: true },
    { key: "reason", label: "Reason", type: "select", options: ["sales", "support"], required: true },
    {
      key: "company",
      label: "Company",
      type: "text",
      required: true,
      step: 2,
      showIf: { field: "reason", equals: "sales" },
    },
    { key: "message", label: "Message", type: "textarea", step: 3 },
    { key: "callMe", label: "Call me", type: "checkbox", step: 3 },
  ],
  settings: { stepTitles: ["You", "Your company", "Anything else"] },
};

export type NewForm = {
  name?: string;
  description?: string;
  status?: "active" | "archived";
  /** Field definitions as the API takes them (defaults filled in by FieldsSchema). */
  fields?: unknown[];
  /** Settings as the API takes them (allowedOrigins, successMessage, notifications …). */
  settings?: Record<string, unknown>;
};

/** Stores a form in the database, as POST /api/forms would: its id. */
export async function newForm({
  name = "Contact",
  description,
  status = "active",
  fields = NAME_AND_EMAIL,
  settings = {},
}: NewForm = {}): Promise<string> {
  const parsed = FieldsSchema.parse(fields);
  const form = await db.form.create({
    data: {
      name,
      description,
      status,
      fields: parsed,
      settings: FormSettingsSchema.parse(settings),
      schemaVersion: 1,
      versions: { create: { version: 1, fields: parsed } },
    },
    select: { id: true },
  });
  return form.id;
}

/** POST /api/forms as the client's user (a 201 expected): the form as the API answers it. */
export async function createFormThroughApi(call: ApiClient, body: Record<string, unknown>) {
  const res = await call("POST", "/api/forms", body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

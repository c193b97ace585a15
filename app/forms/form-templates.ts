// Ready-made forms to start from: `POST /api/forms {"name", "template"}` and the dashboard's
// "New form". A template is only a starting field list, description and thank-you message:
// the form made from it is an ordinary form, edited like any other. Shared with the browser
// (the "New form" preview), so it imports nothing server-only.
import { z } from "zod";
import { FormDescriptionSchema, FormNameSchema, type FormField } from "./schema/form-schema";

export const TEMPLATE_IDS = [
  "contact",
  "demo-request",
  "newsletter",
  "quote",
  "support",
  "event-registration",
] as const;
export type TemplateId = (typeof TEMPLATE_IDS)[number];

export type FormTemplate = {
  id: TemplateId;
  /** What "New form" calls it. */
  title: string;
  /** The created form's description. */
  description: string;
  successMessage: string;
  fields: FormField[];
};

const text = (key: string, label: string, extra: Partial<FormField> = {}): FormField => ({
  key,
  label,
  type: "text",
  required: false,
  maxLength: 200,
  ...extra,
});
const name = text("name", "Name", { required: true, placeholder: "Ada Lovelace" });
const email: FormField = { key: "email", label: "Email", type: "email", required: true, maxLength: 254 };
const company = text("company", "Company");
const phone: FormField = { key: "phone", label: "Phone", type: "tel", required: false, maxLength: 40 };
const textarea = (key: string, label: string, required: boolean, helpText?: string): FormField => ({
  key,
  label,
  type: "textarea",
  required,
  maxLength: 5000,
  ...(helpText ? { helpText } : {}),
});
const select = (key: string, label: string, options: string[], required = false): FormField => ({
  key,
  label,
  type: "select",
  required,
  options,
});

const TEMPLATES: Record<TemplateId, Omit<FormTemplate, "id">> = {
  contact: {
    title: "Contact",
    description: "A message from a visitor, with a way to answer them.",
    successMessage: "Thank you for your message. We will get back to you soon.",
    fields: [name, email, phone, textarea("message", "Message", true)],
  },
  "demo-request": {
    title: "Demo request",
    description: "A prospect asking for a demonstration of the product.",
    successMessage: "Thank you. We will be in touch to find a time for your demo.",
    fields: [
      name,
      { ...email, label: "Work email" },
      { ...company, required: true },
      select("companySize", "Company size", ["1–10", "11–50", "51–200", "201–1,000", "More than 1,000"], true),
      phone,
      textarea("goals", "What would you like to see?", false),
    ],
  },
  newsletter: {
    title: "Newsletter sign-up",
    description: "An email address for the newsletter.",
    successMessage: "Thank you for signing up.",
    fields: [email, text("firstName", "First name")],
  },
  quote: {
    title: "Quote request",
    description: "A request for a price, with what it is for and when.",
    successMessage: "Thank you. We will send you a quote shortly.",
    fields: [
      name,
      email,
      company,
      phone,
      textarea("details", "What do you need?", true, "Quantities, sizes, anything that affects the price."),
      select("budget", "Budget", ["Under 1,000", "1,000–5,000", "5,000–20,000", "Over 20,000", "Not sure yet"]),
      { key: "deadline", label: "Needed by", type: "date", required: false },
    ],
  },
  support: {
    title: "Support request",
    description: "A customer asking for help.",
    successMessage: "Thank you. Your request has reached our support team.",
    fields: [
      name,
      email,
      select("topic", "Topic", ["Billing", "Technical problem", "Account", "Other"], true),
      text("orderNumber", "Order or account number", { maxLength: 100 }),
      textarea("message", "How can we help?", true),
    ],
  },
  "event-registration": {
    title: "Event registration",
    description: "A place at an event.",
    successMessage: "Thank you for registering. See you there!",
    fields: [
      name,
      email,
      company,
      text("jobTitle", "Job title"),
      {
        key: "guests",
        label: "Guests you are bringing",
        type: "number",
        required: false,
        min: 0,
        max: 10,
        defaultValue: 0,
      },
      select("diet", "Dietary requirements", ["None", "Vegetarian", "Vegan", "Gluten-free", "Other"]),
      textarea("notes", "Anything we should know?", false),
    ],
  },
};

/** The template with this id: a fresh copy, so a caller may change it freely. */
export function formTemplate(id: TemplateId): FormTemplate {
  const template = TEMPLATES[id];
  return { id, ...template, fields: template.fields.map((field) => ({ ...field })) };
}

/** Every template, in the order "New form" lists them. */
export function formTemplates(): FormTemplate[] {
  return TEMPLATE_IDS.map(formTemplate);
}

const isTemplateId = (value: unknown): value is TemplateId => TEMPLATE_IDS.includes(value as TemplateId);

/**
 * A create body that names a template, with the template's fields, description and
 * thank-you message filled in where the body leaves them out. A body with its own fields,
 * or naming no known template, comes back as it was (the create schema refuses both).
 */
export function withTemplate(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const input = body as Record<string, unknown>;
  if (!isTemplateId(input.template) || input.fields !== undefined) return body;
  const template = formTemplate(input.template);
  const settings = input.settings ?? {};
  return {
    ...input,
    fields: template.fields,
    description: input.description ?? template.description,
    settings:
      typeof settings === "object" && settings !== null && !Array.isArray(settings)
        ? { successMessage: template.successMessage, ...settings }
        : settings,
  };
}

/** The dashboard's "New form": a name, an optional description, and a template or none. */
export const NewFormSchema = z.object({
  name: FormNameSchema,
  // Absent (not "") when left empty, so a template's own description is used.
  description: FormDescriptionSchema.optional(),
  template: z.enum(TEMPLATE_IDS, { error: "Choose one of the listed templates." }).optional(),
});

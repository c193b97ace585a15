// Every page of the service with realistic data behind it, for the checks that must hold on
// all of them (no sideways scroll on a phone, no serious accessibility violation) and for
// scripts/screenshots.ts. Seeds through the app's own API where one exists.
import { db } from "~/storage/db.server";
import { apiClient, loginAsStaff } from "../support/http";
import { createForm, createLeads, day, field } from "../support/leads";

export type SeededPages = {
  /** Pages behind the staff login. */
  dashboard: string[];
  /** Pages a visitor sees without logging in. */
  visitor: string[];
};

const ONE_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const LONG_EMAIL = "maximiliana.vandenberghe-oppenheimer@a-rather-long-company-name.example";

export async function seedEveryPage(serverUrl: string): Promise<SeededPages> {
  const cookie = await loginAsStaff(serverUrl);
  const api = apiClient(serverUrl, cookie);

  const form = await createForm("Contact form", [
    [
      field("name", "Name"),
      field("email", "Email", "email"),
      field("company", "Company"),
      field("message", "Message", "textarea"),
    ],
  ]);
  await createLeads(form.id, [
    {
      data: { name: "Ada Lovelace", email: "ada@example.com", company: "Analytical Engines", message: "Call me" },
      utmSource: "newsletter",
      utmCampaign: "spring-launch-2026",
      createdAt: day("2026-03-01T10:00:00"),
    },
    {
      data: { name: "Maximiliana", email: LONG_EMAIL, company: "A rather long company name", message: "x".repeat(300) },
      utmSource: "google",
      utmCampaign: "brand",
      createdAt: day("2026-03-02T11:30:00"),
    },
    { data: { name: "Grace Hopper", email: "grace@example.com" }, createdAt: day("2026-03-03T09:15:00") },
  ]);
  const lead = await db.lead.findFirstOrThrow({ where: { formId: form.id }, select: { id: true } });
  const me = await api("GET", "/api/auth/me");
  await api("PATCH", `/api/leads/${lead.id}`, {
    status: "contacted",
    ownerId: me.body.user.id,
    tags: ["vip", "spring"],
  });
  await api("POST", `/api/leads/${lead.id}/notes`, { body: "Called back, wants a demo next week." });

  const ticket = await api("POST", "/api/support-requests", {
    email: LONG_EMAIL,
    name: "Maximiliana",
    subject: "The export has no rows when I filter by a campaign with a very long name",
    message: "Hello,\n\nthe CSV export is empty when I filter by campaign.\n\nThanks!",
  });
  if (ticket.status !== 201) throw new Error(`support request: ${ticket.status} ${ticket.text}`);
  await api("POST", `/api/support-requests/${ticket.body.reference}/notes`, {
    body: "Reproduced on the staging site.",
  });

  // A duplicate merged into it: its page says where its thread went. The first shows the spam badge.
  const duplicate = await api("POST", "/api/support-requests", {
    email: LONG_EMAIL,
    subject: "The export is empty (asked again)",
    message: "Hello again.",
  });
  const merged = await api("POST", `/api/support-requests/${duplicate.body.reference}/merge`, {
    into: ticket.body.reference,
  });
  if (merged.status !== 200) throw new Error(`merge: ${merged.status} ${merged.text}`);
  await db.ticket.update({ where: { reference: ticket.body.reference }, data: { spam: true } });
  // Another of the same customer's, not merged: the merge form suggests it.
  await api("POST", "/api/support-requests", {
    email: LONG_EMAIL,
    subject: "A second question, with a subject long enough to wrap on a narrow screen of a phone",
    message: "Hello once more.",
  });

  const hook = await api("POST", "/api/webhooks", {
    url: "http://127.0.0.1:9/a/rather/long/path/for/the/webhook/receiver/of/this/team",
    events: ["lead.created", "support_request.created"],
    description: "CRM sync",
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${hook.text}`);
  await api("POST", `/api/webhooks/${hook.body.id}/test`);
  await api("POST", "/api/saved-replies", {
    name: "Thanks",
    body: "Thanks for writing to us, we will answer shortly.",
  });
  await api("POST", "/api/tokens", { name: "CRM sync", scopes: ["leads:read"] });
  // The brand and a way back on the thank-you page, so the visitor pages are checked with them.
  const brand = await api("PATCH", "/api/settings/branding", {
    name: "Analytical Engines",
    accentColor: "#0a7d5a",
    logo: `data:image/png;base64,${ONE_PIXEL_PNG}`,
  });
  if (brand.status !== 200) throw new Error(`branding: ${brand.status} ${brand.text}`);
  await api("PATCH", `/api/forms/${form.id}`, {
    settings: { thankYou: { linkUrl: "https://www.example.com/", linkText: "Back to Analytical Engines" } },
  });

  // The person of the long address (made by the support request; their lead was seeded straight).
  const person = await db.personAddress.findUniqueOrThrow({ where: { email: LONG_EMAIL }, select: { personId: true } });

  return {
    dashboard: [
      "/",
      "/forms",
      ...["fields", "settings", "notifications", "share", "danger"].map((section) => `/forms/${form.id}/${section}`),
      "/leads",
      `/leads/${lead.id}`,
      "/leads/sources",
      "/leads/partial",
      "/people",
      `/people/${person.personId}`,
      "/support",
      `/support/${ticket.body.reference}`,
      `/support/${duplicate.body.reference}`,
      "/settings/webhooks",
      `/settings/webhooks/${hook.body.id}`,
      "/settings/staff",
      "/settings/replies",
      "/settings/audit",
      "/settings/branding",
      "/settings/security",
      "/settings/privacy",
      "/settings/mail",
      "/account",
      "/account/tokens",
      "/account/security",
    ],
    visitor: [
      "/login",
      "/forgot-password",
      "/reset-password/not-a-real-token",
      "/invite/not-a-real-token",
      `/f/${form.id}`,
      `/f/${form.id}/thanks`,
      "/support/new",
      "/no-such-page",
    ],
  };
}

// The Slack message of a lead event: what it shows, and that a visitor's text stays text.
import { describe, expect, it } from "vitest";
import type { LeadDetail } from "~/leads/lead.server";
import { slackEscape, slackMessage } from "~/webhooks/webhook-slack";

const lead: LeadDetail = {
  id: "lead1",
  formId: "form1",
  formName: "Contact <sales>",
  createdAt: "2026-11-23T12:00:00.000Z",
  isSpam: false,
  status: "new",
  owner: null,
  tags: [],
  email: null,
  schemaVersion: 1,
  data: { name: "Ada <!channel>", email: "ada@example.com", topics: ["a", "b"], empty: "" },
  fields: [
    { key: "name", label: "Name", type: "text" },
    { key: "email", label: "Email", type: "email" },
    { key: "topics", label: "Topics", type: "checkbox" },
    { key: "empty", label: "Empty", type: "text" },
  ],
  utm: { utm_source: "newsletter", utm_medium: "email", utm_campaign: null, utm_term: null, utm_content: null },
  referrerUrl: "https://news.example.com/a",
  referrerHost: "news.example.com",
  landingPageUrl: null,
  userAgent: null,
  awaitingConfirmation: false,
  confirmedAt: null,
  consents: [],
  files: [],
};

const body = (type: string, data: unknown) => JSON.stringify({ type, timestamp: lead.createdAt, data });

describe("slackMessage", () => {
  it("names the form, shows the filled fields in order, the source and a link to the lead", () => {
    const message = JSON.parse(slackMessage(body("lead.created", lead), "https://leads.example.com"));
    expect(message.text).toBe("New lead in “Contact &lt;sales&gt;”");
    expect(message.blocks[1].fields.map((field: { text: string }) => field.text)).toEqual([
      "*Name*\nAda &lt;!channel&gt;",
      "*Email*\nada@example.com",
      "*Topics*\na, b",
    ]);
    expect(message.blocks[2].elements[0].text).toBe(
      "UTM newsletter / email · from news.example.com · <https://leads.example.com/leads/lead1|Open the lead>",
    );
  });

  it("says a deletion and a ping in words of their own", () => {
    expect(JSON.parse(slackMessage(body("lead.deleted", lead), "https://x")).text).toMatch(/^Lead deleted in /);
    expect(JSON.parse(slackMessage(body("ping", {}), "https://x")).text).toMatch(/test event/);
  });

  it("gives a lead's new status in one line, the actor's name escaped, with a link to the lead", () => {
    const update = {
      id: "lead1",
      formId: "form1",
      changes: { status: { from: "qualified", to: "won" } },
      actor: { id: "u1", email: "grace@example.com", name: "Grace <!here>" },
    };
    expect(JSON.parse(slackMessage(body("lead.updated", update), "https://leads.example.com"))).toEqual({
      text: "Lead status: qualified → won, by Grace &lt;!here&gt;. <https://leads.example.com/leads/lead1|Open the lead>",
    });
  });

  it("escapes Slack's three control characters", () => {
    expect(slackEscape("<@U123> & <https://evil.example|click>")).toBe(
      "&lt;@U123&gt; &amp; &lt;https://evil.example|click&gt;",
    );
  });
});

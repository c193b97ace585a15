// The Slack message of a webhook event, for endpoints of kind "slack" (a Slack incoming
// webhook URL): the form's name, the lead's main fields, its source and a link to it,
// instead of the Standard Webhooks body. Every value from a lead is escaped as Slack asks
// (&, <, >), so a visitor's text cannot become a link, a mention or @channel.
import type { LeadDetail } from "./event-bodies.server";

/** Fields shown in the message; the rest are one click away. */
const MAX_FIELDS = 10;
const MAX_VALUE = 300;

export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function shown(value: unknown): string {
  const text = Array.isArray(value) ? value.join(", ") : value === null || value === undefined ? "" : String(value);
  return slackEscape(text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text);
}

function leadBlocks(lead: LeadDetail, heading: string, appUrl: string) {
  const fields = lead.fields
    .filter((field) => lead.data[field.key] !== undefined && lead.data[field.key] !== "")
    .slice(0, MAX_FIELDS)
    .map((field) => ({ type: "mrkdwn", text: `*${slackEscape(field.label)}*\n${shown(lead.data[field.key])}` }));
  const utm = [lead.utm.utm_source, lead.utm.utm_medium, lead.utm.utm_campaign].filter(Boolean).join(" / ");
  const source = [utm && `UTM ${utm}`, lead.referrerHost && `from ${lead.referrerHost}`].filter(Boolean) as string[];
  const blocks: unknown[] = [{ type: "section", text: { type: "mrkdwn", text: `*${heading}*` } }];
  // A section holds at most 10 fields.
  if (fields.length > 0) blocks.push({ type: "section", fields });
  blocks.push({
    type: "context",
    elements: [
      {
        type: "mrkdwn",
        text: `${source.length ? `${source.map(shown).join(" · ")} · ` : ""}<${appUrl}/leads/${encodeURIComponent(lead.id)}|Open the lead>`,
      },
    ],
  });
  return blocks;
}

type LeadUpdate = {
  id: string;
  changes: { status?: { from: string; to: string } };
  actor: { email: string; name: string | null } | null;
};

/**
 * A lead's new status in one line with a link to it. Slack endpoints hear only of status
 * changes (an owner or tags changed alone are not written for them: decision 041).
 */
function statusMessage(update: LeadUpdate, appUrl: string): string | null {
  const status = update.changes.status;
  if (!status) return null;
  const by = update.actor ? `, by ${slackEscape(update.actor.name ?? update.actor.email)}` : "";
  const link = `<${appUrl}/leads/${encodeURIComponent(update.id)}|Open the lead>`;
  return `Lead status: ${slackEscape(status.from)} → ${slackEscape(status.to)}${by}. ${link}`;
}

/** The Slack body (`{text, blocks}`) of a Standard Webhooks event body. */
export function slackMessage(eventBody: string, appUrl: string): string {
  const event = JSON.parse(eventBody) as { type: string; data: unknown };
  if (event.type === "lead.created" || event.type === "lead.deleted") {
    const lead = event.data as LeadDetail;
    const verb = event.type === "lead.created" ? "New lead" : "Lead deleted";
    const heading = `${verb} in “${slackEscape(lead.formName)}”`;
    return JSON.stringify({ text: heading, blocks: leadBlocks(lead, heading, appUrl) });
  }
  if (event.type === "lead.updated") {
    const message = statusMessage(event.data as LeadUpdate, appUrl);
    if (message) return JSON.stringify({ text: message });
  }
  if (event.type === "ping")
    return JSON.stringify({ text: "A test event from Lead Capture: this channel is connected." });
  return JSON.stringify({ text: `Lead Capture: ${slackEscape(event.type)}` });
}

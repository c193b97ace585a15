// Whether a stored lead gets its form's autoresponse (issue 32, decision 066). Anyone can
// type anyone's address, so an address gets at most AUTORESPONDER_MAX_PER_DAY of them a UTC
// day from all forms together (an atomic counter: parallel submits cannot pass it), none
// once it unsubscribed, and none for spam.
import { renderAutoresponse, type AutoresponderSettings } from "~/forms/autoresponder";
import { isSuppressed, writeAutoresponse } from "~/notifications/autoresponse.server";
import { countAutoresponse } from "~/storage/autoresponder-store.server";
import type { LeadData } from "~/storage/leads/lead-types";
import { env } from "~/utils/env.server";

type AutoresponseInput = {
  settings: AutoresponderSettings | undefined;
  formName: string;
  personName: string | null;
  email: string | null;
  data: LeadData;
  isSpam: boolean;
};

/** Queues the form's autoresponse for a stored lead when it may go; says whether it did. */
export async function queueAutoresponse(input: AutoresponseInput, now = new Date()): Promise<boolean> {
  const { settings, email } = input;
  if (!settings?.enabled || !email || input.isSpam) return false;
  if (await isSuppressed(email)) return false;
  const count = await countAutoresponse(email, now.toISOString().slice(0, 10));
  if (count > env.AUTORESPONDER_MAX_PER_DAY) return false;
  const { subject, text } = renderAutoresponse(settings, input);
  await writeAutoresponse({ toEmail: email, subject, text, replyTo: settings.replyTo ?? null });
  return true;
}

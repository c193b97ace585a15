// A visitor's way through a form in steps without JavaScript (issue 31, item 1): each step is
// a post to the hosted page (/f/:formId), which keeps the answers so far on the server under a
// random token that the next page carries in a hidden field and its address (so Back in the
// browser shows the page before, answers kept), then redirects to the next step. The last
// step posts every answer to the submit endpoint, which forgets the progress once the lead is
// in. Kept in the visitor-draft table (decision 051) for PROGRESS_TTL_MS after the last step.
import { createHash, randomBytes } from "node:crypto";
import { buildLeadDataSchema, type FormField } from "~/forms/schema/form-schema";
import { PROGRESS_FIELD, STEP_FIELD, postedAnswers, stepAfter, stepOf } from "~/forms/schema/form-steps";
import { UTM_KEYS } from "~/leads/lead-fields";
import { db } from "~/storage/db.server";
import { TIMESTAMP_FIELD } from "./lead-signatures.server";
import { savePartialOfStep } from "./partial-lead.server";
import { type PublicForm } from "./public-form.server";
import { type Visitor } from "./views/form-view-visitors.server";
import { STARTED_STAGE, countFunnelStage, hostOfUrl, isBotAgent } from "./views/form-views.server";
import { bounded, leadDraftScope, type DraftValues } from "./visitor-drafts.server";

/** How long a visitor's answers so far wait for their next step. */
export const PROGRESS_TTL_MS = 2 * 60 * 60_000;
/** The most of a visitor's answers kept, in characters of JSON. */
export const PROGRESS_MAX_CHARS = 64 * 1024;

export type Progress = {
  values: DraftValues;
  /** The current step's problems after a refused Next, by field key. */
  errors?: Record<string, string>;
  /** The first page's signed timestamp: the whole form's time counts, not the last page's. */
  timestamp?: string;
  /** The partial lead kept for this visitor (decision 060): the last step's page sends it. */
  partialId?: string;
};

const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const keyOf = (token: string) => createHash("sha256").update(`progress\n${token}`).digest("base64url");

/** The answers so far under a token, or null (unknown, expired, malformed, another form's). */
export async function readProgress(formId: string, token: string | null | undefined, now = Date.now()) {
  if (!token || !TOKEN.test(token)) return null;
  const row = await db.visitorDraft.findUnique({
    where: { key: keyOf(token) },
    select: { scope: true, payload: true, expiresAt: true },
  });
  if (!row || row.scope !== leadDraftScope(formId) || row.expiresAt.getTime() <= now) return null;
  return JSON.parse(row.payload) as Progress;
}

async function saveProgress(formId: string, token: string, progress: Progress, now = Date.now()) {
  // Bounded as a refused post's draft, with room for a long form's steps: past it, answers are left out.
  const payload = JSON.stringify({ ...progress, values: bounded(progress.values, PROGRESS_MAX_CHARS) });
  const key = keyOf(token);
  const data = { scope: leadDraftScope(formId), payload, expiresAt: new Date(now + PROGRESS_TTL_MS) };
  await db.visitorDraft.upsert({ where: { key }, create: { key, ...data }, update: data });
}

/** Forgets a visitor's progress (their lead is in); an unknown token is nothing to forget. */
export async function dropProgress(formId: string, token: string | undefined): Promise<void> {
  if (!token || !TOKEN.test(token)) return;
  await db.visitorDraft.deleteMany({ where: { key: keyOf(token), scope: leadDraftScope(formId) } });
}

/**
 * The answers a step's page posts: its own fields' as the visitor left them (an unticked
 * checkbox is none), and what the page carries along: the other steps' answers so far, and
 * values a link prefilled (hidden fields' too, which are on no step).
 */
function stepAnswers(fields: FormField[], step: number, posted: Record<string, string[]>, before: DraftValues) {
  const values: DraftValues = { ...before };
  for (const field of fields) {
    const given = (posted[field.key] ?? []).map((value) => value.slice(0, 10_000));
    if (given.length === 0 && (stepOf(field) !== step || field.type === "hidden")) continue;
    // An unticked checkbox is kept as such, so that Back does not show its default again.
    if (given.length === 0) values[field.key] = field.type === "multiselect" ? [] : "";
    else values[field.key] = field.type === "multiselect" ? given : given[0];
  }
  return values;
}

/** The problems of one step's fields among the answers so far, by key (the first message of each). */
function stepErrors(fields: FormField[], step: number, values: DraftValues): Record<string, string> {
  const onStep = new Set(fields.filter((field) => stepOf(field) === step).map((field) => field.key));
  const result = buildLeadDataSchema(fields, "form").safeParse(values);
  const errors: Record<string, string> = {};
  for (const issue of result.success ? [] : result.error.issues) {
    const key = String(issue.path[0] ?? "");
    if (onStep.has(key)) errors[key] ??= issue.message;
  }
  return errors;
}

/**
 * One step's post without JavaScript: its answers join the ones before; Next checks them
 * (and stays on the step with the problems if any), Back does not. Returns the page to go to.
 */
export async function postStep(form: PublicForm, body: URLSearchParams, visitor: Visitor): Promise<string> {
  const posted: Record<string, string[]> = Object.create(null);
  for (const [name, value] of body) (posted[name] ??= []).push(value);
  const one = (name: string) => posted[name]?.[0] ?? "";

  let token = one(PROGRESS_FIELD);
  const saved = await readProgress(form.id, token);
  if (!saved) token = randomBytes(24).toString("base64url");
  const step = Math.max(1, Math.trunc(Number(one(STEP_FIELD))) || 1);
  const values = stepAnswers(form.fields, step, posted, saved?.values ?? {});

  const forward = one("_intent") !== "back";
  const errors = forward ? stepErrors(form.fields, step, values) : {};
  const next =
    Object.keys(errors).length > 0
      ? step
      : stepAfter(form.fields, postedAnswers(form.fields, values), step, forward ? 1 : -1);
  const timestamp = saved?.timestamp ?? (one(TIMESTAMP_FIELD).slice(0, 100) || undefined);
  // A step completed (Next, no problems): its answers so far are kept as a partial lead.
  const partialId =
    forward && next !== step
      ? await savePartialOfStep(form, step, values, {
          one: (name) => (name === TIMESTAMP_FIELD ? (timestamp ?? "") : one(name)),
          partialId: saved?.partialId,
          userAgent: visitor.userAgent,
        })
      : saved?.partialId;
  await saveProgress(form.id, token, {
    values,
    ...(Object.keys(errors).length > 0 ? { errors } : {}),
    ...(timestamp ? { timestamp } : {}),
    ...(partialId ? { partialId } : {}),
  });

  if (forward && next > step) countStages(form.id, next, one, visitor);

  // The source travels from page to page as the first page received it.
  const params = new URLSearchParams({ [STEP_FIELD]: String(next), [PROGRESS_FIELD]: token });
  for (const key of UTM_KEYS) if (one(key)) params.set(key, one(key).slice(0, 200));
  if (one("referrerUrl")) params.set("ref", one("referrerUrl").slice(0, 2048));
  if (one("landingPageUrl")) params.set("landing", one("landingPageUrl").slice(0, 2048));
  return `/f/${encodeURIComponent(form.id)}?${params}`;
}

/**
 * The funnel without JavaScript (decision 059): a step posted forward is the visitor's first
 * interaction, and the step it leads to is reached, counted as the beacons count them.
 */
function countStages(formId: string, reached: number, one: (name: string) => string, visitor: Visitor) {
  if (isBotAgent(visitor.userAgent)) return;
  const source = {
    utmSource: one("utm_source"),
    utmCampaign: one("utm_campaign"),
    referrerHost: hostOfUrl(one("referrerUrl")),
  };
  countFunnelStage(formId, STARTED_STAGE, source, visitor);
  countFunnelStage(formId, reached, source, visitor);
}

// /f/:formId: the public hosted form (no login). Server-rendered from the form's
// schema and posting to /api/leads/submit as a plain HTML form, so it works without
// JavaScript; with JavaScript the post goes by fetch and errors show without losing
// what the visitor typed. Each render for a visitor (not a bot, not the page shown again
// after a refused post) counts as a view of the form, once per visitor in the window the
// beacon's views share (decision 039). It carries its own URL's utm_* values, the page that sent
// the visitor (Referer) and its own address as the landing page into the submission. A link
// may prefill fields by key (`/f/:id?plan=pro`), hidden ones included.
import { data, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { getBrand } from "~/brand/brand.server";
import { limitStepPosts } from "~/capture/lead-capture.server";
import { readSignedErrors, RETRY_FIELD, signTimestamp, TIMESTAMP_FIELD } from "~/capture/lead-signatures.server";
import { getPublicForm } from "~/capture/public-form.server";
import { postStep, readProgress } from "~/capture/step-progress.server";
import { countView, hostOfUrl, isBotAgent } from "~/capture/views/form-views.server";
import { isSettled, leadDraftScope, takeDraft, type DraftValues } from "~/capture/visitor-drafts.server";
import { BrandHeader, brandStyle } from "~/components/BrandHeader";
import { FormFields } from "~/components/FormFields";
import { Honeypot } from "~/components/Honeypot";
import {
  CaptchaWidget,
  PrivacyNotice,
  useFetchSubmit,
  useFunnelBeacons,
  useShownFields,
} from "~/components/HostedFormParts";
import { StepFields, useSteps } from "~/components/HostedFormSteps";
import { RouteError } from "~/components/RouteError";
import { HttpUrlSchema, isTickBox, type FormField, type LeadValue } from "~/forms/schema/form-schema";
import { formSteps, PROGRESS_FIELD, STEP_FIELD, stepOf, type FormStep } from "~/forms/schema/form-steps";
import { HONEYPOT_FIELD, PARTIAL_FIELD, UTM_KEYS } from "~/leads/lead-fields";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

const OWN_PARAMS = ["errors", "sig", "ref", "landing", "draft", "attempt", STEP_FIELD, PROGRESS_FIELD];

const CHECKED = new Set(["on", "true", "1", "yes"]);

/** A refused post's values as the form's controls show them (a checkbox on, a list of choices). */
function shownValues(fields: FormField[], posted: DraftValues): Record<string, LeadValue> {
  const values: Record<string, LeadValue> = {};
  for (const field of fields) {
    const value = posted[field.key];
    if (isTickBox(field.type)) values[field.key] = CHECKED.has(String(value ?? "").toLowerCase());
    else if (value === undefined) continue;
    else if (field.type === "multiselect") values[field.key] = Array.isArray(value) ? value : [value];
    else values[field.key] = Array.isArray(value) ? (value[0] ?? "") : value;
  }
  return values;
}

/** Longest value a link may prefill (the field's own limit still applies when it is sent). */
const PREFILL_MAX_LENGTH = 10_000;

/**
 * Values the link's query string gives fields, by key (`?plan=pro&topics=a&topics=b`), shown
 * as the visitor's own: a field the link leaves out keeps its default, and what is sent is
 * checked on submit like anything typed.
 */
function prefillValues(fields: FormField[], params: URLSearchParams): Record<string, LeadValue> {
  // A consent is given by the visitor's own tick, never by a link (decision 065).
  const given = fields.filter((field) => params.has(field.key) && field.type !== "consent");
  const posted: DraftValues = {};
  for (const field of given) posted[field.key] = params.getAll(field.key).map((v) => v.slice(0, PREFILL_MAX_LENGTH));
  return shownValues(given, posted);
}

/** The step a page shows: the first with a problem, or the one asked for (the first if none is). */
function pageStep(fields: FormField[], steps: FormStep[], errors: Record<string, string>, asked: string | null) {
  const problem = fields.find((field) => errors[field.key] !== undefined);
  const step = problem ? stepOf(problem) : Number(asked);
  return steps.some((candidate) => candidate.number === step) ? step : steps[0].number;
}

function validUrl(value: string | null | undefined): string {
  return value && HttpUrlSchema.safeParse(value).success ? value.trim() : "";
}

export const loader = page(async function loader({ request, params, context }: LoaderFunctionArgs) {
  const form = await getPublicForm(params.formId ?? "");
  if (!form) throw new Response("This form does not exist.", { status: 404 });
  const url = new URL(request.url);

  // After a refused post the submit endpoint sends the visitor back here with the
  // original referrer and landing page (`ref`, `landing`); otherwise they are this
  // request's Referer (unless it is this very page) and this page's own address.
  let referrerUrl = validUrl(url.searchParams.get("ref"));
  const referer = request.headers.get("Referer");
  if (!referrerUrl && referer) {
    try {
      const from = new URL(referer);
      if (!(from.origin === url.origin && from.pathname === url.pathname)) referrerUrl = validUrl(referer);
    } catch {
      // not a URL: no referrer
    }
  }
  const landing = new URL(url);
  for (const name of OWN_PARAMS) landing.searchParams.delete(name);
  const landingPageUrl = validUrl(url.searchParams.get("landing")) || validUrl(landing.toString());

  const hidden: Record<string, string> = { formId: form.id, referrerUrl, landingPageUrl };
  for (const key of UTM_KEYS) hidden[key] = (url.searchParams.get(key) ?? "").slice(0, 200);
  // A form in steps: the page of the visitor's progress so far (without JavaScript, each step is a post).
  const steps = formSteps(form.fields, form.settings.stepTitles);
  const progressToken = steps.length > 1 ? url.searchParams.get(PROGRESS_FIELD) : null;
  const progress = await readProgress(form.id, progressToken);
  if (progress) hidden[PROGRESS_FIELD] = progressToken!;
  // Kept by a step without JavaScript (decision 060): the Send completes it.
  if (progress?.partialId) hidden[PARTIAL_FIELD] = progress.partialId;
  hidden[TIMESTAMP_FIELD] = progress?.timestamp ?? signTimestamp(form.id);

  const shownAgain = url.searchParams.has("errors") || progressToken !== null;
  const userAgent = request.headers.get("User-Agent");
  if (form.status === "active" && request.method === "GET" && !shownAgain && !isBotAgent(userAgent)) {
    countView(
      form.id,
      { utmSource: hidden.utm_source, utmCampaign: hidden.utm_campaign, referrerHost: hostOfUrl(referrerUrl) },
      { ip: clientIp(context), userAgent },
    );
  }

  const signedErrors = readSignedErrors(form.id, url.searchParams.get("errors"), url.searchParams.get("sig"));
  // Back to a refused post's page after the form was sent from it: say so, not the old errors.
  const attempt = url.searchParams.get("attempt");
  const alreadySent = signedErrors !== null && (await isSettled(leadDraftScope(form.id), attempt));
  const errors = alreadySent ? {} : (signedErrors ?? progress?.errors ?? {});
  if (signedErrors && !alreadySent && attempt) hidden[RETRY_FIELD] = attempt;
  // What the visitor typed before a refused plain post, kept on the server (read once).
  const draft = await takeDraft(leadDraftScope(form.id), url.searchParams.get("draft"));
  // After a refused post every field was sent (an unticked checkbox by its absence); a step's
  // progress holds only the steps passed.
  const values = alreadySent
    ? {}
    : draft
      ? shownValues(form.fields, { ...progress?.values, ...draft.values })
      : {
          ...prefillValues(form.fields, url.searchParams),
          ...shownValues(
            form.fields.filter((field) => progress?.values[field.key] !== undefined),
            progress?.values ?? {},
          ),
        };
  return data(
    {
      brand: await getBrand(),
      form: { id: form.id, name: form.name, description: form.description, fields: form.fields },
      closed: form.status === "archived",
      hidden,
      honeypot: HONEYPOT_FIELD,
      errors,
      alreadySent,
      values,
      steps,
      step: pageStep(form.fields, steps, errors, url.searchParams.get(STEP_FIELD)),
      doneUrl: form.settings.redirectUrl ?? `/f/${encodeURIComponent(form.id)}/thanks`,
      // The widget's provider and site key; never the secret.
      captcha: form.settings.captcha
        ? { provider: form.settings.captcha.provider, siteKey: form.settings.captcha.siteKey }
        : null,
      capturePartial: form.settings.capturePartial === true,
      privacyUrl: form.settings.privacyUrl ?? null,
    },
    { status: form.status === "archived" ? 410 : 200, headers: { "Cache-Control": "private, no-store" } },
  );
});

/** A step's Next or Back without JavaScript: its answers kept, then the step to go to. */
export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const form = await getPublicForm(params.formId ?? "");
  if (!form) throw new Response("This form does not exist.", { status: 404 });
  const here = `/f/${encodeURIComponent(form.id)}`;
  if (form.status !== "active" || formSteps(form.fields).length < 2) return redirect(here, 303);
  await limitStepPosts(form.id, clientIp(context));
  const body = new URLSearchParams();
  for (const [name, value] of await request.formData()) if (typeof value === "string") body.append(name, value);
  const visitor = { ip: clientIp(context), userAgent: request.headers.get("User-Agent") };
  return redirect(await postStep(form, body, visitor), 303);
});

// The embeds' stylesheet, so the hosted page and an embedded form look alike.
export const links: LinksFunction = () => [{ rel: "stylesheet", href: "/embed.css" }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? data.form.name : "Form not found" },
  { name: "robots", content: "noindex" },
];

export default function HostedForm() {
  const {
    brand,
    form,
    closed,
    hidden,
    honeypot,
    errors: serverErrors,
    alreadySent,
    values,
    doneUrl,
    captcha,
    steps,
    step,
    capturePartial,
    privacyUrl,
  } = useLoaderData<typeof loader>();
  const { errors, busy, submitWithFetch } = useFetchSubmit(serverErrors, doneUrl, captcha);
  const { shown, formRef, onAnswer } = useShownFields(form.fields);
  const stepped = useSteps(form.fields, step, errors, formRef, capturePartial);
  useFunnelBeacons(formRef, form.id, stepped.current);
  const formError = errors._form ?? (Object.keys(errors).length > 0 ? "Please correct the fields marked below." : null);

  return (
    <main className="centered hosted-form" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      <h1>{form.name}</h1>
      {form.description ? <p className="muted">{form.description}</p> : null}
      {closed ? (
        <p className="notice warn" role="alert">
          This form is closed and no longer accepts submissions.
        </p>
      ) : (
        <form
          ref={formRef}
          className="lc-form"
          method="post"
          action="/api/leads/submit"
          // A file field's files go only in a multipart post (decision 064).
          encType={form.fields.some((field) => field.type === "file") ? "multipart/form-data" : undefined}
          onSubmit={steps.length > 1 ? (event) => stepped.onSubmit(event, submitWithFetch) : submitWithFetch}
          onChange={onAnswer}
          onInput={onAnswer}
        >
          <FormNotice alreadySent={alreadySent} formError={formError} />
          {Object.entries(hidden).map(([name, value]) =>
            value ? <input key={name} type="hidden" name={name} value={value} /> : null,
          )}
          {steps.length > 1 ? <Honeypot id="lead-hp" name={honeypot} /> : null}
          {stepped.partialId ? <input type="hidden" name={PARTIAL_FIELD} value={stepped.partialId} /> : null}
          {steps.length > 1 ? (
            <StepFields
              fields={form.fields}
              steps={steps}
              current={stepped.current}
              values={values}
              errors={errors}
              shown={shown}
              pageUrl={`/f/${encodeURIComponent(form.id)}`}
              busy={busy}
              beforeSend={captcha ? <CaptchaWidget {...captcha} /> : null}
            />
          ) : (
            <>
              <FormFields fields={form.fields} values={values} errors={errors} idPrefix="lead" shown={shown} />
              <Honeypot id="lead-hp" name={honeypot} />
              {captcha ? <CaptchaWidget {...captcha} /> : null}
              <p>
                <button type="submit" disabled={busy}>
                  {busy ? "Sending…" : "Send"}
                </button>
              </p>
            </>
          )}
          {privacyUrl ? <PrivacyNotice url={privacyUrl} /> : null}
        </form>
      )}
    </main>
  );
}

/** Above the fields: the refusal of the last post, or word that the form was sent since. */
function FormNotice({ alreadySent, formError }: { alreadySent: boolean; formError: string | null }) {
  if (alreadySent) {
    return (
      <p className="notice" role="status">
        Your answers were sent: thank you. Send the form again only if you have something to add.
      </p>
    );
  }
  return formError ? (
    <p className="error-panel" role="alert">
      {formError}
    </p>
  ) : null;
}

export function ErrorBoundary() {
  return (
    <main className="centered">
      <RouteError notFound="This form does not exist." />
    </main>
  );
}

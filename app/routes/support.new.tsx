// /support/new: the public page where a customer opens a support request. A plain HTML
// form that works without JavaScript, with the lead forms' spam defences (a hidden
// honeypot, a signed time-to-submit, the per-address and per-recipient limits); errors
// come back in the page with what the customer typed. Conform reads the form with the
// schema the browser checks it with before sending.
import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { getBrand } from "~/brand/brand.server";
import { isSpamBySignals, signTimestamp, timestampVerdict } from "~/capture/lead-signatures.server";
import { isBotAgent } from "~/capture/views/form-views.server";
import { SUPPORT_DRAFT_SCOPE, takeDraft } from "~/capture/visitor-drafts.server";
import { BrandHeader, brandStyle } from "~/components/BrandHeader";
import { Honeypot } from "~/components/Honeypot";
import { RouteError } from "~/components/RouteError";
import { CreateTicketSchema } from "~/support/support-schemas";
import { createTicket, decoyTicket, limitSupportRequestsFor, limitSupportRequestsFrom } from "~/support/support.server";
import { RateLimited } from "~/utils/domain-error";
import { page } from "~/utils/http/page.server";
import { clientIp } from "~/utils/http/request.server";
import { textPolicyIssues } from "~/utils/text-policy";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

/** The scope the page's timestamp is signed for (lead forms sign theirs with the form id). */
const TIMESTAMP_SCOPE = "support-request";
const HONEYPOT = "website";
const FIELDS = ["email", "name", "subject", "message"] as const;
type Field = (typeof FIELDS)[number];
type Values = Record<Field, string>;

export const meta: MetaFunction = () => [{ title: "Ask for help" }, { name: "robots", content: "noindex" }];

export async function loader({ request }: LoaderFunctionArgs) {
  // A site's own contact form posted to /api/support-requests without JavaScript lands
  // here: with the reference, or refused with what was typed (kept on the server, read once).
  const draft = await takeDraft(SUPPORT_DRAFT_SCOPE, new URL(request.url).searchParams.get("draft"));
  const timestamp = signTimestamp(TIMESTAMP_SCOPE);
  let shown: ActionResult | null = null;
  if (draft?.sent) shown = { sent: draft.sent };
  else if (draft) {
    const values = Object.fromEntries(
      FIELDS.map((field) => [field, typeof draft.values[field] === "string" ? draft.values[field] : ""]),
    ) as Values;
    const error = Object.fromEntries(
      Object.entries(draft.errors ?? {}).map(([field, message]) => [field === "_form" ? "" : field, [message]]),
    );
    shown = { reply: { status: "error", initialValue: values, error }, timestamp };
  }
  return data({ brand: await getBrand(), timestamp, shown }, { headers: { "Cache-Control": "private, no-store" } });
}

type ActionResult = { sent: string } | { reply: SubmissionResult<string[]>; timestamp: string };

export const action = page(async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const submission = parseWithZod(form, { schema: CreateTicketSchema });
  const again = (fieldErrors: Record<string, string[]>, status: number, formErrors?: string[]) =>
    data<ActionResult>(
      { reply: submission.reply({ fieldErrors, formErrors }), timestamp: signTimestamp(TIMESTAMP_SCOPE) },
      { status },
    );

  try {
    await limitSupportRequestsFrom(clientIp(context));
  } catch (refusal) {
    if (refusal instanceof RateLimited) {
      return again({}, 429, ["Too many requests from your network just now. Please try again in an hour."]);
    }
    throw refusal;
  }
  // Control characters in any field are named before the schema's own refusals.
  const values = Object.fromEntries(FIELDS.map((field) => [field, String(form.get(field) ?? "")]));
  const policy: Record<string, string[]> = {};
  for (const issue of textPolicyIssues(values)) policy[String(issue.path[0])] = [issue.message];
  if (submission.status !== "success" || Object.keys(policy).length > 0) return again(policy, 422);

  // A bot (the hidden field filled, a forged timestamp, or a script sending faster than a
  // person types) is answered like everyone else, so it learns nothing, but nothing is
  // stored or sent. Speed alone is not enough: autofill lets people be that fast.
  const userAgent = request.headers.get("User-Agent");
  const spam = isSpamBySignals({
    honeypotFilled: String(form.get(HONEYPOT) ?? "").trim() !== "",
    timestamp: timestampVerdict(TIMESTAMP_SCOPE, form.get("_ts") ?? "", Date.now()),
    scriptedAgent: !userAgent || isBotAgent(userAgent),
  });
  if (spam) {
    return data<ActionResult>({ sent: (await decoyTicket()).reference });
  }
  try {
    await limitSupportRequestsFor(submission.value.email);
  } catch (refusal) {
    if (refusal instanceof RateLimited) {
      return again({ email: ["We have had several requests for this address today. Please try again tomorrow."] }, 429);
    }
    throw refusal;
  }
  const ticket = await createTicket(submission.value);
  return data<ActionResult>({ sent: ticket.reference });
});

const FIX_BELOW = "Please correct the fields marked below.";

const LABELS: Record<Field, string> = {
  email: "Your email",
  name: "Your name (optional)",
  subject: "Subject",
  message: "How can we help?",
};

export default function NewSupportRequest() {
  const { brand, timestamp, shown } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() ?? shown ?? undefined;
  if (result && "sent" in result) {
    return (
      <main className="centered" style={brandStyle(brand)}>
        <BrandHeader brand={brand} />
        <h1>We have your request</h1>
        <p role="status">
          Its reference is <strong>{result.sent}</strong>. We have emailed you a confirmation; reply to that email to
          add anything.
        </p>
      </main>
    );
  }
  return (
    <main className="centered" style={brandStyle(brand)}>
      <BrandHeader brand={brand} />
      <h1>Ask for help</h1>
      <RequestForm lastResult={result?.reply} timestamp={result?.timestamp ?? timestamp} />
    </main>
  );
}

/** The request's fields, each with its error; checked in the browser as the server will. */
function RequestForm({ lastResult, timestamp }: { lastResult?: SubmissionResult<string[]>; timestamp: string }) {
  const [form, fields] = useForm({
    id: "support-request",
    lastResult,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: CreateTicketSchema }),
  });
  const refused = form.errors?.[0] ?? (Object.keys(form.allErrors).length > 0 ? FIX_BELOW : undefined);
  return (
    <>
      {refused ? (
        <p className="error" role="alert">
          {refused}
        </p>
      ) : null}
      <Form method="post" {...getFormProps(form)}>
        <input type="hidden" name="_ts" value={timestamp} />
        <Honeypot id="website" name={HONEYPOT} />
        {FIELDS.map((field) => {
          const error = fields[field].errors?.[0];
          const initial = fields[field].initialValue;
          const props = {
            id: field,
            name: field,
            defaultValue: typeof initial === "string" ? initial : "",
            required: field !== "name",
            "aria-invalid": error ? true : undefined,
            "aria-describedby": error ? `${field}-error` : undefined,
          };
          return (
            <p key={field}>
              <label htmlFor={field}>{LABELS[field]}</label>
              {field === "message" ? (
                <textarea rows={8} {...props} />
              ) : (
                <input
                  type={field === "email" ? "email" : "text"}
                  autoComplete={field === "email" ? "email" : field === "name" ? "name" : "off"}
                  {...props}
                />
              )}
              {error ? (
                <span id={`${field}-error`} className="field-error">
                  {error}
                </span>
              ) : null}
            </p>
          );
        })}
        <p>
          <button type="submit">Send</button>
        </p>
      </Form>
    </>
  );
}

export function ErrorBoundary() {
  return (
    <main className="centered">
      <RouteError />
    </main>
  );
}

// /settings/webhooks/:id: one endpoint: its health and settings, its deliveries with their
// attempts, and the test, retry, rotate, disable/enable and delete buttons. Every button is
// a form post with an `intent`, answered with this page (delete: back to the list), so all of
// it works without JavaScript; a rotated secret shows once, in the action's answer.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { auditor } from "~/audit/audit.server";
import { RouteError } from "~/components/RouteError";
import { DeliveryList } from "~/components/webhooks/DeliveryList";
import { SecretNotice, fieldErrorsFrom } from "~/components/webhooks/EndpointFields";
import { DeleteEndpoint, EndpointActions, EndpointSummary, SettingsForm } from "~/components/webhooks/EndpointPanels";
import { listFormChoices } from "~/leads/lead.server";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import { statusOf } from "~/utils/http/api.server";
import { page } from "~/utils/http/page.server";
import { EndpointFormSchema } from "~/webhooks/webhook-schemas";
import {
  deleteWebhook,
  getWebhook,
  listDeliveries,
  retryDelivery,
  rotateWebhookSecret,
  sendTestPing,
  setWebhookEnabled,
  updateWebhook,
} from "~/webhooks/webhooks.server";
import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.endpoint.url} · Webhooks` : "Webhook endpoint" },
];

// A rotation's answer carries the new secret: no cache, no back-button copy of it.
export const headers: HeadersFunction = () => ({ "Cache-Control": "no-store" });

/** Endpoint and delivery ids are cuids and base64url: anything else names nothing (and
 * PostgreSQL refuses some text, a NUL, outright), so it is not looked up. */
const ID = /^[\w-]{1,64}$/;

function endpointId(params: LoaderFunctionArgs["params"]): string {
  if (!ID.test(params.id ?? "")) throw new Response("No such webhook endpoint.", { status: 404 });
  return params.id!;
}

export const loader = page(async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "webhooks.manage");
  const id = endpointId(params);
  const [endpoint, deliveries, forms] = await Promise.all([getWebhook(id), listDeliveries(id), listFormChoices()]);
  return { endpoint, deliveries, forms };
});

type Answer = {
  intent: string;
  ok: boolean;
  message?: string;
  /** A rotation's new secret, shown once. */
  secret?: string;
  /** Conform's reply to the settings form. */
  reply?: SubmissionResult<string[]>;
};

const answer = (value: Answer, status = 200) => data<Answer>(value, { status });

const DONE: Record<string, string> = {
  enable: "Enabled: deliveries to it resume.",
  disable: "Disabled: nothing is delivered to it until it is enabled again; its deliveries wait.",
  test: "Test event queued: its delivery is below; reload in a moment to see its attempt.",
  retry: "Delivery queued to be attempted again now.",
  update: "Saved.",
};

/** The settings form, parsed with the schema the browser checked with (Conform, decision 022). */
async function saveSettings(id: string, form: FormData, audit: ReturnType<typeof auditor>) {
  const submission = parseWithZod(form, { schema: EndpointFormSchema });
  if (submission.status !== "success") return answer({ intent: "update", ok: false, reply: submission.reply() }, 422);
  try {
    await updateWebhook(id, submission.value, audit);
    return answer({ intent: "update", ok: true, message: DONE.update, reply: submission.reply() });
  } catch (thrown) {
    if (!(thrown instanceof DomainError) || thrown.code === "not_found") throw thrown;
    const reply = submission.reply({ formErrors: [thrown.message], fieldErrors: fieldErrorsFrom(thrown.details) });
    return answer({ intent: "update", ok: false, reply }, statusOf(thrown));
  }
}

export const action = page(async function action({ request, params, context }: ActionFunctionArgs) {
  const audit = auditor(context, await authorize(request, "webhooks.manage"));
  const id = endpointId(params);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  try {
    switch (intent) {
      case "update":
        return await saveSettings(id, form, audit);
      case "enable":
      case "disable":
        await setWebhookEnabled(id, intent === "enable", audit);
        break;
      case "test":
        await sendTestPing(id);
        break;
      case "retry": {
        const deliveryId = String(form.get("deliveryId") ?? "");
        if (!ID.test(deliveryId)) return answer({ intent, ok: false, message: "There is no such delivery." }, 404);
        await retryDelivery(id, deliveryId);
        break;
      }
      case "rotate": {
        const { secret } = await rotateWebhookSecret(id, audit);
        return answer({ intent, ok: true, secret });
      }
      case "delete":
        if (form.get("confirm") !== "on") {
          return answer({ intent, ok: false, message: "Tick “I understand” to delete the endpoint." }, 422);
        }
        await deleteWebhook(id, audit);
        return redirect("/settings/webhooks?deleted=1");
      default:
        return answer({ intent, ok: false, message: "Unknown action." }, 400);
    }
    return answer({ intent, ok: true, message: DONE[intent] });
  } catch (thrown) {
    // A missing endpoint is the page's 404; other refusals (a rotation at the same moment,
    // a delivery that is gone) show as a message on the page.
    if (!(thrown instanceof DomainError) || (thrown.code === "not_found" && intent !== "retry")) throw thrown;
    return answer({ intent, ok: false, message: thrown.message }, statusOf(thrown));
  }
});

export default function WebhookEndpointPage() {
  const { endpoint, deliveries, forms } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as Answer | undefined;
  const navigation = useNavigation();
  const busy = navigation.state !== "idle" ? String(navigation.formData?.get("intent") ?? "") : "";
  return (
    <>
      <p>
        <Link to="/settings/webhooks">← Webhooks</Link>
      </p>
      <h1>{endpoint.url}</h1>
      <EndpointSummary endpoint={endpoint} />
      {result?.secret ? (
        <SecretNotice heading="Secret rotated" secret={result.secret}>
          <p>The previous secret keeps signing beside it for 24 hours, so the receiver can switch without a gap.</p>
        </SecretNotice>
      ) : null}
      {result?.message && result.intent !== "delete" && result.intent !== "update" ? (
        <p className={result.ok ? "notice" : "notice warn"} role={result.ok ? "status" : "alert"}>
          {result.message}
        </p>
      ) : null}
      <EndpointActions endpoint={endpoint} busy={busy} />
      <h2>Deliveries</h2>
      <p className="muted">
        The 50 newest, each with its attempts. <Link to=".">Reload</Link>
      </p>
      <DeliveryList
        deliveries={deliveries}
        busyDelivery={busy === "retry" ? String(navigation.formData?.get("deliveryId")) : undefined}
      />
      <SettingsForm
        endpoint={endpoint}
        forms={forms}
        lastResult={result?.intent === "update" ? result.reply : undefined}
        saved={result?.intent === "update" && result.ok}
        busy={busy === "update"}
      />
      <DeleteEndpoint refusal={result?.intent === "delete" && !result.ok ? result.message : undefined} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError notFound="There is no webhook endpoint with this id." />;
}

// Renders pages to a stream (bots get the whole document), and owns the background
// work of the process: server.js calls startBackgroundWork once it listens and
// stopBackgroundWork on shutdown.
import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@remix-run/node";
import { RemixServer, isRouteErrorResponse } from "@remix-run/react";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { startLeadFileCleanup } from "~/capture/uploads/lead-uploads.server";
import { startFormViewFlush } from "~/capture/views/form-views.server";
import { startDraftCleanup } from "~/capture/visitor-drafts.server";
import { stopExportWorkers } from "~/leads/export/lead-export-xlsx.server";
import { startDigestSchedule } from "~/notifications/notifications.server";
import { startOutboxWorker } from "~/notifications/outbox.server";
import { startRetention } from "~/retention/retention.server";
import { startSessionCleanup } from "~/staff/session.server";
import { db } from "~/storage/db.server";
import { startAttachmentCleanup } from "~/support/attachment-store.server";
import { startImapIntake } from "~/support/inbound/imap/imap-intake.server";
import { startInboundWorkers } from "~/support/inbound/inbound-worker.server";
import { NonceProvider } from "~/utils/http/nonce";
import { documentSecurityHeaders } from "~/utils/http/security-headers.server";
import { log } from "~/utils/log.server";
import { startWebhookWorker } from "~/webhooks/webhook-delivery.server";
import type { AppLoadContext, EntryContext } from "@remix-run/node";

const ABORT_DELAY = 5_000;

export const streamTimeout = ABORT_DELAY;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext?.cspNonce ?? "";
  for (const [name, value] of Object.entries(documentSecurityHeaders(new URL(request.url).pathname, nonce))) {
    responseHeaders.set(name, value);
  }
  // Every page is made for one person at one moment (a lead, a refilled form, an error
  // that was put right since): no browser or proxy keeps a copy that Back or a later
  // visitor could be shown. A route may still set its own (a loader's headers are not a
  // document's headers in Remix unless the route forwards them).
  if (!responseHeaders.has("Cache-Control")) responseHeaders.set("Cache-Control", "private, no-store");
  const waitForAll = isbot(request.headers.get("user-agent") ?? "");
  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceProvider>,
      {
        [waitForAll ? "onAllReady" : "onShellReady"]() {
          shellRendered = true;
          const body = new PassThrough();
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
          pipe(body);
        },
        nonce,
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) log.error("a page failed while streaming", error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY + 1000);
  });
}

export function handleError(error: unknown, { request }: { request: Request }) {
  // Aborted requests and unknown addresses are not failures of ours.
  if (request.signal.aborted || (isRouteErrorResponse(error) && error.status === 404)) return;
  log.error("route error", error);
}

const backgroundWork: Array<{ stop: () => Promise<void> }> = [];

/** `load`: the server's requests in flight, so that webhook deliveries yield to a saturated server. */
export async function startBackgroundWork(load?: { recentPeakInFlight: () => number }): Promise<void> {
  backgroundWork.push(
    await startOutboxWorker(),
    startWebhookWorker({ recentPeakInFlight: load?.recentPeakInFlight }),
    startDigestSchedule(),
    startSessionCleanup(),
    startDraftCleanup(),
    startAttachmentCleanup(),
    startLeadFileCleanup(),
    startInboundWorkers(),
    startImapIntake(),
    startFormViewFlush(),
    startRetention(),
    { stop: stopExportWorkers },
  );
}

/** Each stop finishes its work (the form views' last flush among them) before the database closes. */
export async function stopBackgroundWork(): Promise<void> {
  await Promise.all(backgroundWork.map((work) => work.stop()));
  await db.$disconnect();
}

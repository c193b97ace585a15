// GET /metrics: the service's metrics in Prometheus's text format, for a scraper holding
// METRICS_TOKEN (404 while it is unset). What is measured: docs/operations.md#metrics;
// why so: docs/decisions/052-prometheus-metrics.md.
import { checkSecretGuess } from "~/staff/auth.server";
import { env } from "~/utils/env.server";
import { apiRoute, fail, methodNotAllowed } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import { metricsResponse } from "~/utils/metrics.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

const BEARER = /^Bearer +(\S+) *$/i;

export const loader = apiRoute(async ({ request, context }: LoaderFunctionArgs) => {
  if (request.method === "OPTIONS") methodNotAllowed(["GET", "HEAD"]);
  const expected = env.METRICS_TOKEN;
  if (!expected) fail(404, "not_found", "Metrics are off: set METRICS_TOKEN to turn them on.");
  const token = BEARER.exec(request.headers.get("Authorization") ?? "")?.[1];
  // Compared in constant time; a wrong token is counted per address like the other secrets
  // (decision 037): past 10 in 15 minutes, 429. The right one always passes.
  if (!token || !(await checkSecretGuess(clientIp(context), token, expected, "metrics token"))) {
    fail(401, "unauthorized", "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.", {
      headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
    });
  }
  return metricsResponse();
});

// Called straight from the server, as the hot routes are (decision 004): a scrape never
// waits on Remix's router.
export const handle = { directDispatch: true };

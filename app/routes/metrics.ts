// GET /metrics: the service's metrics in Prometheus's text format, for a scraper holding
// METRICS_TOKEN (404 while it is unset). What is measured: docs/operations.md#metrics;
// why so: docs/decisions/052-prometheus-metrics.md.
import { methodNotAllowed } from "~/utils/api.server";
import { metricsResponse } from "~/utils/metrics.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export function loader({ request }: LoaderFunctionArgs) {
  if (request.method === "OPTIONS") methodNotAllowed(["GET", "HEAD"]);
  return metricsResponse(request);
}

// Called straight from the server, as the hot routes are (decision 004): a scrape never
// waits on Remix's router, and no rate limit stands in its way.
export const handle = { directDispatch: true };

// The service's metrics at GET /metrics, in Prometheus's text format (decision 052): the
// helpers that define a metric in prom-client's default registry, scrape-time backlog gauges,
// and the route's answer behind METRICS_TOKEN. Each metric is defined by the module whose work
// it counts (the submit endpoint, the lead store, the outbox, the webhook worker, the inbound
// workers; server/http-metrics.ts the requests and the process, in the same registry);
// docs/operations.md#metrics lists them all.
import { createHash, timingSafeEqual } from "node:crypto";
import {
  Counter,
  Gauge,
  Histogram,
  register,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Metric,
} from "prom-client";
import { errorResponse } from "./api.server";
import { env } from "./env.server";

/**
 * Registers a metric in place of any of the same name: in development Vite evaluates a
 * changed module again, whose metrics must replace those of the copy they replace.
 */
function registered<M extends Metric>(name: string, metric: M): M {
  register.removeSingleMetric(name);
  register.registerMetric(metric);
  return metric;
}

export const counter = <T extends string>(config: CounterConfiguration<T>) =>
  registered(config.name, new Counter({ ...config, registers: [] }));

export const gauge = <T extends string>(config: GaugeConfiguration<T>) =>
  registered(config.name, new Gauge({ ...config, registers: [] }));

export const histogram = <T extends string>(config: HistogramConfiguration<T>) =>
  registered(config.name, new Histogram({ ...config, registers: [] }));

/** A queue's backlog: rows waiting, and when the one waiting longest was due (null: none). */
export type Backlog = { pending: number; oldestDueAt: Date | null };

/**
 * Two gauges of a queue, read at scrape time with one query (`read`): `<name>_pending` and
 * `<name>_oldest_pending_age_seconds`, how long the longest-waiting row has been due (0 when
 * none is). Due time, not creation time: a row put off by its retry delay is not late; one
 * due and untaken says the worker is stuck or behind. NaN when the database did not answer.
 */
export function backlogGauges(
  name: string,
  help: { pending: string; age: string },
  read: () => Promise<Backlog>,
): void {
  // The two gauges are collected side by side: one read serves both.
  let reading: Promise<Backlog | null> | null = null;
  const readOnce = () =>
    (reading ??= read()
      .catch((error: unknown) => {
        console.error(`metrics: reading ${name} failed:`, error);
        return null;
      })
      .finally(() => (reading = null)));
  gauge({
    name: `${name}_pending`,
    help: help.pending,
    async collect() {
      const backlog = await readOnce();
      this.set(backlog ? backlog.pending : NaN);
    },
  });
  gauge({
    name: `${name}_oldest_pending_age_seconds`,
    help: help.age,
    async collect() {
      const backlog = await readOnce();
      const due = backlog?.oldestDueAt;
      this.set(backlog ? (due ? Math.max(0, (Date.now() - due.getTime()) / 1000) : 0) : NaN);
    },
  });
}

const tokenDigest = (token: string) => createHash("sha256").update(token).digest();
const expected = env.METRICS_TOKEN ? tokenDigest(env.METRICS_TOKEN) : null;

/** Whether an Authorization header carries the metrics token, compared in constant time. */
function isMetricsToken(authorization: string | null): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
  // Digests of equal length: the comparison's time says nothing of the token's length either.
  return expected !== null && match !== null && timingSafeEqual(tokenDigest(match[1]), expected);
}

/**
 * GET /metrics: 404 while METRICS_TOKEN is unset (nothing here), 401 without the token, the
 * metrics otherwise. Errors in the API's JSON shape.
 */
export async function metricsResponse(request: Request): Promise<Response> {
  if (!expected) return errorResponse(404, "not_found", "Metrics are off: set METRICS_TOKEN to turn them on.");
  if (!isMetricsToken(request.headers.get("Authorization"))) {
    return errorResponse(401, "unauthorized", "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.", {
      headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
    });
  }
  return new Response(await register.metrics(), {
    headers: { "Content-Type": register.contentType, "Cache-Control": "no-store" },
  });
}

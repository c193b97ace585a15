// The service's metrics at GET /metrics, in Prometheus's text format (decision 052): the
// helpers that define a metric in prom-client's default registry, scrape-time backlog gauges,
// and the text the route answers (app/routes/metrics.ts checks METRICS_TOKEN). Each metric is
// defined by the module whose work it counts (the submit endpoint, the lead store, the outbox,
// the webhook worker, the inbound workers; server/http-metrics.ts the requests and the
// process, in the same registry); docs/operations.md#metrics lists them all.
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
import { log } from "./log.server";

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

/**
 * Where a backlog's count stops: a scrape reads at most this many index entries however long
 * a queue has grown (a receiver down for days), and any alert fires long before it.
 */
export const BACKLOG_COUNT_CAP = 100_000;

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
        log.error(`metrics: reading ${name} failed`, error);
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

/** The metrics of the process (and prom-client's own), as GET /metrics answers them. */
export async function metricsResponse(): Promise<Response> {
  return new Response(await register.metrics(), {
    headers: { "Content-Type": register.contentType, "Cache-Control": "no-store" },
  });
}

// The request duration histogram and the process's own metrics, in prom-client's default
// registry: the app's bundle loads the same prom-client from node_modules, so its /metrics
// route (app/utils/metrics.server.ts) serves these beside the app's own (decision 052).
// Every label is bounded: the route's pattern from the build (`/api/forms/:id`), never the
// path a client sent; the status's class; the method among those the server implements.
import { collectDefaultMetrics, Gauge, Histogram, register } from "prom-client";
import { KNOWN_METHODS } from "./guards";
import { routePatterns } from "./route-patterns";
import type { ServerBuild } from "@remix-run/node";
import type { IncomingMessage, ServerResponse } from "node:http";

/** A path no route names: a static file when it was answered, else "unmatched" (scans, typos). */
const STATIC = "static";
const UNMATCHED = "unmatched";
const STATUS_CLASSES = ["other", "1xx", "2xx", "3xx", "4xx", "5xx"];

export type RequestMetrics = {
  /** Observes one answered (or abandoned) request that started at `started` (performance.now()). */
  observe: (
    build: ServerBuild | Promise<ServerBuild>,
    req: IncomingMessage,
    res: ServerResponse,
    started: number,
  ) => void;
};

/**
 * The histogram, the requests in flight (`inFlight`, read at scrape time) and the default
 * process metrics: one set per process.
 */
export function requestMetrics(inFlight: () => number): RequestMetrics {
  if (!register.getSingleMetric("process_cpu_seconds_total")) collectDefaultMetrics();
  if (!register.getSingleMetric("http_requests_in_flight")) {
    new Gauge({
      name: "http_requests_in_flight",
      help: "Requests this process has received and not yet answered.",
      collect() {
        this.set(inFlight());
      },
    });
  }
  const histogram =
    (register.getSingleMetric("http_request_duration_seconds") as Histogram<"method" | "route" | "status_class">) ??
    new Histogram({
      name: "http_request_duration_seconds",
      help: "Time from a request's arrival to its answer's last byte, by route pattern, method and status class (aborted: the client left before an answer).",
      labelNames: ["method", "route", "status_class"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
  // Each label set's series, found once: prom-client hashes the labels object on every
  // observe otherwise. Bounded as the labels are (the build's patterns, methods, classes).
  const children = new Map<string, { observe: (value: number) => void }>();
  function record(build: ServerBuild, req: IncomingMessage, res: ServerResponse, seconds: number) {
    const patterns = routePatterns(build);
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const status = res.statusCode;
    const answered = res.headersSent;
    const route =
      patterns.patternOf(query === -1 ? url : url.slice(0, query)) ?? (answered && status < 400 ? STATIC : UNMATCHED);
    const method = KNOWN_METHODS.has(req.method ?? "") ? req.method! : "other";
    const statusClass = answered ? (STATUS_CLASSES[Math.floor(status / 100)] ?? "other") : "aborted";
    const key = `${method} ${statusClass} ${route}`;
    let child = children.get(key);
    if (!child) children.set(key, (child = histogram.labels({ method, route, status_class: statusClass })));
    child.observe(seconds);
  }

  return {
    observe(build, req, res, started) {
      const seconds = (performance.now() - started) / 1000;
      // In development the build is loaded anew (a promise); in production it is at hand.
      if (build instanceof Promise) void build.then((loaded) => record(loaded, req, res, seconds)).catch(() => {});
      else record(build, req, res, seconds);
    },
  };
}

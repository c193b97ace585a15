// The HTTP server around the Remix app, the same in production and development: limits
// for a public endpoint, the checks before routing, the direct-dispatch fast path, the
// Remix handler, static files (sirv over build/client, or Vite's middleware in
// development) and graceful shutdown. Decisions 002, 004 and 020.
import { randomBytes } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import sirv from "sirv";
import { isApiPath } from "../app/utils/http/request.server";
import { log, withRequestId } from "../app/utils/log.server";
import { clientAddressOf, compileTrustProxy, requestHref, requestUrl, type Trust } from "./client-address";
import { callDirect, directHandler, directRoutes } from "./direct-dispatch";
import { guardPageMutation, MUTATIONS, refusedBeforeRouting } from "./guards";
import { requestMetrics } from "./http-metrics";
import { serverLimits } from "./limits";
import {
  BASE_HEADERS,
  answer,
  htmlError,
  jsonError,
  readBody,
  refuse,
  responseHeaders,
  sendResponse,
  toDirectRequest,
  toRequest,
} from "./node-http";
import { logClosed, requestIdOf, routeNamer } from "./request-log";
import { answerClientError, capConnectionsPerClient } from "./sockets";

const PREREAD_LIMIT = 64 * 1024;

/**
 * What the server tells the app's background work: the most requests it answered at once
 * lately (inFlightPeaks).
 */
export type ServerLoad = { recentPeakInFlight: () => number };
/** What app/entry.server.tsx exports beside Remix's own entry functions. */
type BackgroundWork = {
  startBackgroundWork?: (load: ServerLoad) => Promise<void>;
  stopBackgroundWork?: () => Promise<void>;
};

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** Where the app comes from: a production build, or Vite compiling app/ on demand. */
type AppSource = {
  mode: "production" | "development";
  load: () => Promise<ServerBuild>;
  assets: Middleware;
  close: () => Promise<void>;
};

export type AppServerOptions = {
  /** The production build folder (default BUILD_DIR or build/). */
  buildDir?: string;
  /** Serve app/ through Vite in middleware mode, with hot reload (npm run dev). */
  dev?: boolean;
  /** Call directly dispatched routes through Remix too (the tests compare both paths). */
  directDispatch?: boolean;
};

export type AppServer = {
  server: http.Server;
  /** Starts the app's background work (outbox, cleanups); call once listening. */
  startBackgroundWork: () => Promise<void>;
  /**
   * Stops accepting, waits for requests in flight, then stops background work and closes the
   * database; false when that took longer than SHUTDOWN_TIMEOUT_MS.
   */
  shutdown: () => Promise<boolean>;
};

async function productionSource(buildDir: string): Promise<AppSource> {
  const build = (await import(pathToFileURL(path.join(buildDir, "server", "index.js")).href)) as ServerBuild;
  const assets = sirv(path.join(buildDir, "client"), {
    etag: true,
    gzip: false,
    setHeaders(res, pathname) {
      for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
      const immutable = pathname.startsWith("/assets/");
      res.setHeader("Cache-Control", immutable ? "public, max-age=31536000, immutable" : "public, max-age=3600");
    },
  });
  return { mode: "production", load: async () => build, assets, close: async () => {} };
}

async function developmentSource(server: http.Server): Promise<AppSource> {
  const vite = await import("vite");
  const before = new Set(process.listeners("SIGTERM"));
  const dev = await vite.createServer({ appType: "custom", server: { middlewareMode: true, hmr: { server } } });
  // The Remix plugin's child compiler exits the process on SIGTERM; our shutdown finishes
  // the requests in flight first, then closes Vite.
  for (const listener of process.listeners("SIGTERM")) {
    if (!before.has(listener)) process.off("SIGTERM", listener);
  }
  return {
    mode: "development",
    load: () => dev.ssrLoadModule("virtual:remix/server-build") as Promise<ServerBuild>,
    assets: dev.middlewares as unknown as Middleware,
    close: () => dev.close(),
  };
}

/** A request target's query, "?" included, as URL's `search` has it ("" for none or a bare "?"). */
function searchOf(target: string): string {
  const start = target.indexOf("?");
  if (start === -1) return "";
  const end = target.indexOf("#", start);
  const search = end === -1 ? target.slice(start) : target.slice(start, end);
  return search === "?" ? "" : search;
}

/** A client that hung up or was cut off mid-request: its own doing, not our failure. */
function isClientAbort(req: IncomingMessage, error: unknown): boolean {
  const failure = error as { code?: string; message?: string; cause?: { code?: string } } | null;
  const code = failure?.code ?? failure?.cause?.code;
  return (
    req.destroyed || code === "ECONNRESET" || code === "ERR_STREAM_PREMATURE_CLOSE" || failure?.message === "aborted"
  );
}

/** The end of a request that threw: a client abort is no failure of ours; anything else is a 500. */
function failed(req: IncomingMessage, res: ServerResponse, error: unknown) {
  if (isClientAbort(req, error)) {
    // Logged once, as the connection closes (see the request listener).
    if (!res.destroyed) res.destroy();
    return;
  }
  log.error("request failed", error);
  void jsonError(res, 500, "internal_error", "Something went wrong on our side.");
}

/** Node's server with the limits on slow clients and open connections. */
function httpServer(limits: ReturnType<typeof serverLimits>, trust: Trust | null): http.Server {
  const server = http.createServer({
    // Slow clients: headers must arrive within headersTimeout and the whole request
    // within requestTimeout, checked this often (Node's default is every 30 s).
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 4),
  });
  server.on("clientError", answerClientError);
  server.keepAliveTimeout = 65_000;
  // Past this many open connections new ones are closed at once, so slow or idle
  // clients cannot exhaust the process's sockets and memory.
  server.maxConnections = limits.maxConnections;
  capConnectionsPerClient(server, limits.maxConnectionsPerClient, trust);
  return server;
}

/** The two ways a request is answered: the fast path, or Remix's handler. */
function requestHandlers(
  options: AppServerOptions,
  source: AppSource,
  productionBuild: ServerBuild | null,
  trust: Trust | null,
) {
  const handle = createRequestHandler(productionBuild ?? source.load, source.mode);
  const directByBuild = new WeakMap<ServerBuild, ReturnType<typeof directRoutes>>();
  const directFor = (build: ServerBuild) => {
    let routes = directByBuild.get(build);
    if (!routes) directByBuild.set(build, (routes = directRoutes(build)));
    return routes;
  };
  const routes = routeNamer(productionBuild);

  /** The fast path (direct-dispatch.ts); false when the request is Remix's to route. */
  async function dispatchDirect(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean> {
    if (options.directDispatch === false) return false;
    const build = productionBuild ?? routes.served(await source.load());
    const route = directFor(build).match(pathname);
    const handler = route ? directHandler(route.module, req.method ?? "GET", searchOf(req.url ?? "/")) : null;
    if (!handler) return false;
    // A small body of known length is read before the route runs: a Request made from
    // bytes costs less than one streaming from the socket (decision 020), and the route
    // sees the same body either way.
    const length = Number(req.headers["content-length"]);
    const small = length > 0 && length <= PREREAD_LIMIT && req.method !== "GET" && req.method !== "HEAD";
    const body = small ? await readBody(req, PREREAD_LIMIT) : undefined;
    const request = toDirectRequest(req, res, requestHref(req, trust), body ?? undefined);
    const response = await callDirect(build, handler, request, context(req), route!.params);
    // Small JSON answers: one write with a Content-Length instead of a chunked stream.
    const payload = response.body ? Buffer.from(await response.arrayBuffer()) : null;
    await answer(res, response.status, responseHeaders(response), payload);
    return true;
  }

  // The CSP nonce is made when a page asks for it: resource routes never do.
  const context = (req: IncomingMessage) => {
    let nonce: string | undefined;
    return {
      clientIp: clientAddressOf(req, trust),
      get cspNonce() {
        return (nonce ??= randomBytes(16).toString("base64"));
      },
    };
  };

  async function viaRemix(req: IncomingMessage, res: ServerResponse, pathname: string) {
    let bufferedBody: Buffer | undefined;
    if (MUTATIONS.has(req.method ?? "") && !isApiPath(pathname)) {
      try {
        const body = await guardPageMutation(req, res, trust);
        if (body === null) return;
        bufferedBody = body;
      } catch {
        return htmlError(res, 400, "The request body could not be read.");
      }
    }
    let request: Request;
    try {
      request = toRequest(req, res, requestUrl(req, trust), bufferedBody);
    } catch {
      return refuse(res, pathname, 400, "bad_request", "The request line or headers are malformed.");
    }
    await sendResponse(res, await handle(request, context(req)));
  }

  return { dispatchDirect, viaRemix, routeOf: routes.name };
}

/**
 * The most requests in flight at once lately: over the current window and the one before it
 * (each `windowMs`, the one before up to twice that when it was quiet), so a peak is kept
 * from `windowMs` up to three times that after it. Every request counts, assets too: any of
 * them queued is a reason to wait. Background work
 * yields on it (decision 028): an instant sample misses a saturated server, whose count
 * drops to a few each time a group commit answers its whole batch at once. Sampled, a
 * saturating bench round looked idle to the webhook worker, which then delivered 1,200
 * events a second beside the load instead of 50.
 */
export function inFlightPeaks(windowMs = 250, clock: () => number = () => performance.now()) {
  let windowStart = 0;
  let peak = 0;
  let previous = 0;
  const roll = (now: number) => {
    if (now - windowStart < windowMs) return;
    previous = now - windowStart < 2 * windowMs ? peak : 0;
    windowStart = now;
    peak = 0;
  };
  return {
    note(count: number) {
      roll(clock());
      if (count > peak) peak = count;
    },
    recent(count: number) {
      roll(clock());
      return Math.max(peak, previous, count);
    },
  };
}

/**
 * Builds the HTTP server around the app. Listen on `server`, then call
 * `startBackgroundWork`; `shutdown` on SIGTERM.
 */
export async function createAppServer(options: AppServerOptions = {}): Promise<AppServer> {
  const trust: Trust | null = compileTrustProxy(process.env.TRUST_PROXY);
  const limits = serverLimits(process.env);
  const logRequests = process.env.LOG_REQUESTS === "true";
  let inFlight = 0;
  const peaks = inFlightPeaks();
  let idle: (() => void) | null = null;

  const server = httpServer(limits, trust);

  const source = options.dev
    ? await developmentSource(server)
    : await productionSource(path.resolve(options.buildDir ?? process.env.BUILD_DIR ?? "build"));
  // In production the build is loaded once; in development Vite reloads it as app/ changes.
  const productionBuild = source.mode === "production" ? await source.load() : null;
  const currentBuild = () => productionBuild ?? source.load();
  const { dispatchDirect, viaRemix, routeOf } = requestHandlers(options, source, productionBuild, trust);
  const metrics = requestMetrics(() => inFlight);

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    peaks.note(inFlight);
    // Sent on every answer, errors and the fast path included (decision 053).
    const requestId = requestIdOf(req, trust);
    res.setHeader("x-request-id", requestId);
    const started = performance.now();
    res.once("close", () => {
      inFlight--;
      metrics.observe(currentBuild(), req, res, started);
      logClosed(req, res, requestId, logRequests ? started : null, routeOf);
      if (inFlight === 0 && idle) idle();
    });
    withRequestId(requestId, () => serve(req, res));
  });

  function serve(req: IncomingMessage, res: ServerResponse) {
    if (refusedBeforeRouting(req, res, trust)) return;
    const pathname = req.url?.split("?")[0] ?? "/";
    dispatchDirect(req, res, pathname)
      .then((done) => {
        if (done) return;
        source.assets(req, res, () => {
          viaRemix(req, res, pathname).catch((error) => failed(req, res, error));
        });
      })
      .catch((error) => failed(req, res, error));
  }

  const entry = async () => (await currentBuild()).entry.module as BackgroundWork;

  async function startBackgroundWork() {
    await (await entry()).startBackgroundWork?.({ recentPeakInFlight: () => peaks.recent(inFlight) });
  }

  /**
   * Stops accepting, lets the requests in flight finish (three quarters of
   * SHUTDOWN_TIMEOUT_MS at most, then the rest are cut), then stops the background work at
   * its next safe point and closes the database. Resolves false when that did not all happen
   * within SHUTDOWN_TIMEOUT_MS.
   */
  async function shutdown(): Promise<boolean> {
    const requestsMs = Math.floor(limits.shutdownTimeoutMs * 0.75);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      if (inFlight === 0) resolve();
      else idle = resolve;
      setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, requestsMs).unref();
    });
    const stopped = (async () => {
      await (await entry()).stopBackgroundWork?.();
      await source.close();
      return true;
    })();
    const late = new Promise<boolean>((resolve) =>
      setTimeout(() => resolve(false), limits.shutdownTimeoutMs - requestsMs).unref(),
    );
    return Promise.race([stopped, late]);
  }

  return { server, startBackgroundWork, shutdown };
}

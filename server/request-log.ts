// Each request's id and its log line (decision 053). The id is the trusted proxy's
// X-Request-Id when it sent a well-formed one, else made here; it is sent back on every
// answer and carried by every line the request's work logs. The line names the route's
// pattern (`/reset-password/:token`), never the path as asked (a token in it) or the query
// string (emails, tokens).
import { randomUUID } from "node:crypto";
import { log } from "../app/utils/log.server";
import { fromTrustedProxy, type Trust } from "./client-address";
import { routePatterns } from "./route-patterns";
import type { ServerBuild } from "@remix-run/node";
import type { IncomingMessage, ServerResponse } from "node:http";

// Ids as proxies and tracers write them (UUIDs, hex, base64, `Root=1-…`): bounded, and
// nothing that could break a log line or a header.
const REQUEST_ID = /^[A-Za-z0-9._:+=/-]{1,128}$/;

/** The request's id: a trusted proxy's X-Request-Id when well-formed, else a new UUID. */
export function requestIdOf(req: IncomingMessage, trust: Trust | null): string {
  const sent = req.headers["x-request-id"];
  if (typeof sent === "string" && REQUEST_ID.test(sent) && fromTrustedProxy(req, trust)) return sent;
  return randomUUID();
}

/**
 * Names a path by the route pattern that serves it (route-patterns.ts). A path no route
 * serves (a static file, a 404) is named as it is, up to 200 characters.
 */
export function routeNames(build: ServerBuild): (pathname: string) => string {
  const { patternOf } = routePatterns(build);
  return (pathname) => patternOf(pathname) ?? unmatched(pathname);
}

// 20 or more letters, digits, `-` and `_` in a row: a token (reset and invite links carry 43),
// never a word or an asset's hash.
const TOKEN_LIKE = /[A-Za-z0-9_-]{20,}/g;

/**
 * A path no route serves, as asked (a static file, a typo), up to 200 characters, but for runs
 * that look like a token: a mangled reset or invite link (`/reset-password/<token>/x`) would
 * otherwise put its token in the log.
 */
function unmatched(pathname: string): string {
  return pathname.slice(0, 200).replace(TOKEN_LIKE, ":redacted");
}

/**
 * Names paths by the routes of the build that served last: the production build, or in
 * development the one Vite loaded last (`served` notes it and returns it).
 */
export function routeNamer(build: ServerBuild | null) {
  let last = build;
  return {
    served(loaded: ServerBuild): ServerBuild {
      return (last = loaded);
    },
    name(pathname: string): string {
      return last ? routeNames(last)(pathname) : unmatched(pathname);
    },
  };
}

/**
 * Logs a closed request: a client that went away (always), and the request line when
 * `started` is set (LOG_REQUESTS).
 */
export function logClosed(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  started: number | null,
  routeOf: (pathname: string) => string,
): void {
  const gone = !res.writableFinished;
  if (!gone && started === null) return;
  const line = { requestId, method: req.method ?? "", route: routeOf(req.url?.split("?")[0] ?? "/") };
  // A client that hung up or was cut off mid-request: one quiet line, no stack.
  if (gone) log.clientGone(line);
  if (started !== null) {
    log.request({ ...line, status: res.statusCode, durationMs: Math.round((performance.now() - started) * 10) / 10 });
  }
}

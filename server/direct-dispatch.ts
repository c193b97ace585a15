// A fast path for hot resource routes, with Remix's own semantics.
//
// Remix's router ranks every route of the app on every request, which costs more than
// the whole public submit endpoint (decision 004). A resource route may export
// `handle = { directDispatch: true }` (a static path, or one with `:param` segments that no
// other route outranks); its loader and action are then called
// here as Remix would call them: the loader for GET, HEAD and OPTIONS, the action for
// POST, PUT, PATCH and DELETE, with the same Request (abort signal, body read on demand),
// `params` and load context, thrown Responses marked X-Remix-Catch, other errors passed
// to the app's handleError and answered with Remix's last-resort 500, and HEAD answered
// without a body. Anything Remix treats specially (another method, a missing handler,
// the _data, index and _routes query parameters) is left to Remix itself.
// tests/integration/direct-dispatch.test.ts compares both paths' answers.
import { log } from "../app/utils/log.server";
import type { ServerBuild } from "@remix-run/node";

type RouteModule = ServerBuild["routes"][string]["module"];
type Handler = NonNullable<RouteModule["loader"]>;
type LoadContext = Parameters<Handler>[0]["context"];

const LOADER_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const ACTION_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// Query parameters Remix reads or strips before calling a route.
const REMIX_PARAMS = /[?&](?:_data|index|_routes)(?:[=&]|$)/;

type Params = Record<string, string>;

/** The directly dispatched routes of a build: the route a pathname reaches, and its params. */
export type DirectRoutes = { match: (pathname: string) => { module: RouteModule; params: Params } | null };

/** A route's full path, as segments ("api", "forms", ":id", "views"). */
function segmentsOf(build: ServerBuild, route: ServerBuild["routes"][string]): string[] {
  const segments: string[] = [];
  for (let current: typeof route | undefined = route; current; current = build.routes[current.parentId ?? ""]) {
    if (current.path) segments.unshift(...current.path.split("/").filter(Boolean));
  }
  return segments;
}

const isParam = (segment: string) => segment.startsWith(":");

/**
 * Whether Remix would rank `other` above `pattern` for some URL both match: same length,
 * every segment compatible, and a static segment of `other` where `pattern` has a param.
 */
function outranks(other: string[], pattern: string[]): boolean {
  if (other.length !== pattern.length || other.some((segment) => segment.includes("*"))) return false;
  let moreStatic = false;
  for (let i = 0; i < other.length; i++) {
    if (isParam(other[i]) || isParam(pattern[i])) {
      if (!isParam(other[i])) moreStatic = true;
    } else if (other[i].toLowerCase() !== pattern[i].toLowerCase()) return false;
  }
  return moreStatic;
}

/**
 * The directly dispatched routes of a build. A static path is looked up as it is; a path
 * with params (`:id` segments, no splat, no optional segment) is matched segment by segment
 * and its params decoded as Remix decodes them. A path Remix might route elsewhere (another
 * case, a trailing slash, an undecodable segment) is left to Remix, and a route that another
 * route would outrank refuses to start.
 */
export function directRoutes(build: ServerBuild): DirectRoutes {
  const exact = new Map<string, RouteModule>();
  const patterns: Array<{ segments: string[]; module: RouteModule }> = [];
  const all = Object.values(build.routes).flatMap((route) => (route ? [segmentsOf(build, route)] : []));
  for (const route of Object.values(build.routes)) {
    if (!route || !(route.module.handle as { directDispatch?: boolean } | undefined)?.directDispatch) continue;
    if (route.module.default) continue;
    const segments = segmentsOf(build, route);
    if (segments.some((segment) => segment.includes("*") || segment.endsWith("?"))) {
      throw new Error(`directDispatch needs a path without splats or optional segments: ${route.id}`);
    }
    if (!segments.some(isParam)) {
      exact.set(`/${segments.join("/")}`, route.module);
      continue;
    }
    if (all.some((other) => outranks(other, segments))) {
      throw new Error(`directDispatch: another route outranks ${route.id}`);
    }
    patterns.push({ segments, module: route.module });
  }
  return {
    match(pathname) {
      const module = exact.get(pathname);
      if (module) return { module, params: {} };
      if (patterns.length === 0 || pathname.includes("\\")) return null;
      const parts = pathname.split("/").slice(1);
      for (const pattern of patterns) {
        if (parts.length !== pattern.segments.length) continue;
        const params: Params = {};
        let matched = true;
        for (let i = 0; i < parts.length && matched; i++) {
          const segment = pattern.segments[i];
          if (!isParam(segment)) matched = parts[i] === segment;
          else if (parts[i] === "") matched = false;
          else {
            let value: string;
            try {
              value = decodeURIComponent(parts[i]);
            } catch {
              return null;
            }
            // Dot segments are resolved by the URL parser before Remix matches: its business.
            if (value === "." || value === "..") return null;
            params[segment.slice(1)] = value;
          }
        }
        if (matched) return { module: pattern.module, params };
      }
      return null;
    },
  };
}

/** The handler this request would reach in Remix, or null when Remix must decide. */
export function directHandler(module: RouteModule, method: string, search: string): Handler | null {
  if (search && REMIX_PARAMS.test(search)) return null;
  if (LOADER_METHODS.has(method)) return module.loader ?? null;
  if (ACTION_METHODS.has(method)) return (module.action as Handler | undefined) ?? null;
  return null;
}

/** Calls a route handler as Remix's handleResourceRequest does and returns its answer. */
export async function callDirect(
  build: ServerBuild,
  handler: Handler,
  request: Request,
  context: LoadContext,
  params: Params = {},
): Promise<Response> {
  const args = { request, params, context };
  let response: Response;
  try {
    const result: unknown = await handler(args);
    if (result === undefined) throw new Error("A resource route handler returned nothing.");
    response = result instanceof Response ? result : Response.json(result);
  } catch (thrown) {
    if (thrown instanceof Response) {
      thrown.headers.set("X-Remix-Catch", "yes");
      response = thrown;
    } else {
      reportError(build, thrown, args);
      response = new Response("Unexpected Server Error", { status: 500, headers: { "Content-Type": "text/plain" } });
    }
  }
  if (request.method === "HEAD") {
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  return response;
}

function reportError(build: ServerBuild, error: unknown, args: { request: Request; params: object; context: unknown }) {
  const handleError = build.entry.module.handleError;
  if (handleError) handleError(error, args as Parameters<typeof handleError>[1]);
  else if (!args.request.signal.aborted) log.error("request failed", error);
}

// A fast path for hot resource routes, with Remix's own semantics.
//
// Remix's router ranks every route of the app on every request, which costs more than
// the whole public submit endpoint (decision 004). A resource route with a static path
// may export `handle = { directDispatch: true }`; its loader and action are then called
// here as Remix would call them: the loader for GET, HEAD and OPTIONS, the action for
// POST, PUT, PATCH and DELETE, with the same Request (abort signal, body read on demand),
// `params` and load context, thrown Responses marked X-Remix-Catch, other errors passed
// to the app's handleError and answered with Remix's last-resort 500, and HEAD answered
// without a body. Anything Remix treats specially (another method, a missing handler,
// the _data, index and _routes query parameters) is left to Remix itself.
// tests/integration/direct-dispatch.test.ts compares both paths' answers.
import type { ServerBuild } from "@remix-run/node";

type RouteModule = ServerBuild["routes"][string]["module"];
type Handler = NonNullable<RouteModule["loader"]>;
type LoadContext = Parameters<Handler>[0]["context"];

const LOADER_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const ACTION_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// Query parameters Remix reads or strips before calling a route.
const REMIX_PARAMS = /[?&](?:_data|index|_routes)(?:[=&]|$)/;

/** The directly dispatched routes of a build, by pathname. */
export function directRoutes(build: ServerBuild): Map<string, RouteModule> {
  const routes = new Map<string, RouteModule>();
  for (const route of Object.values(build.routes)) {
    if (!route || !(route.module.handle as { directDispatch?: boolean } | undefined)?.directDispatch) continue;
    if (route.module.default) continue;
    const segments: string[] = [];
    for (let current: typeof route | undefined = route; current; current = build.routes[current.parentId ?? ""]) {
      if (current.path) segments.unshift(current.path);
    }
    const pathname = `/${segments.join("/")}`;
    if (/[:*]/.test(pathname)) throw new Error(`directDispatch needs a static path: ${route.id}`);
    routes.set(pathname, route.module);
  }
  return routes;
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
): Promise<Response> {
  const args = { request, params: {}, context };
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
  else if (!args.request.signal.aborted) console.error(error);
}

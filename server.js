// The production server: a bare node:http server in front of the Remix request
// handler (measured several times faster than remix-serve's Express stack, see
// docs/decisions/002-custom-node-server.md), serving the built assets with sirv.
//
//   node server.js          serves build/ on HOST:PORT (reads .env first, if present)
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/node";
import proxyaddr from "proxy-addr";
import sirv from "sirv";

const root = path.dirname(fileURLToPath(import.meta.url));

function loadEnvFile() {
  // ENV_FILE="" turns this off (the test suite passes every variable itself).
  const file = process.env.ENV_FILE ?? ".env";
  if (file && fs.existsSync(path.resolve(root, file))) process.loadEnvFile(path.resolve(root, file));
}

// Sent with every response; pages add their CSP in app/entry.server.tsx.
const BASE_HEADERS = { "x-content-type-options": "nosniff", "referrer-policy": "strict-origin-when-cross-origin" };

const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const DRAIN_LIMIT_MS = 5_000;

/**
 * A refusal sent before the body was read (413, 401...) closes the connection, or a
 * client reusing it would wait forever. Closing a socket with the client's data still
 * arriving resets it, and the client, still sending, never reads our answer: so the
 * rest of the body is read and dropped first, up to a bound.
 */
function drainRequest(req) {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      resolve();
    };
    const onData = (chunk) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_LIMIT_MS);
    req.on("data", onData);
    req.once("end", done);
    req.once("close", done);
    req.once("error", done);
    req.resume();
  });
}

/** Sends a whole (small) answer; see drainRequest for a request not read to its end. */
async function answer(res, status, headers, payload) {
  if (!res.req.complete) {
    headers.connection = "close";
    await drainRequest(res.req);
  }
  if (res.destroyed) return;
  if (payload) headers["content-length"] = Buffer.byteLength(payload);
  res.writeHead(status, headers);
  res.end(payload);
}

function jsonError(res, status, code, message) {
  if (res.headersSent) return res.destroy();
  const headers = { ...BASE_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  return answer(res, status, headers, JSON.stringify({ error: { code, message } }));
}

/**
 * Which hops in front of us are ours (TRUST_PROXY): unset or "false", none; "true", one
 * proxy; a whole number, that many; otherwise a comma list of addresses or CIDR ranges
 * (proxy-addr's names "loopback", "linklocal" and "uniquelocal" work too). Returns the
 * trust function proxy-addr takes, or null when no proxy is trusted.
 */
export function compileTrustProxy(value) {
  const setting = (value ?? "").trim();
  if (setting === "" || setting === "false" || setting === "0") return null;
  if (setting === "true") return (_address, hop) => hop < 1;
  if (/^\d+$/.test(setting)) {
    const hops = Number(setting);
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(setting.split(",").map((entry) => entry.trim()).filter(Boolean));
}

/**
 * The client's address: the socket's, or behind trusted proxies the rightmost
 * X-Forwarded-For entry that is not one of them. (The leftmost entry is whatever the
 * client chose to send, so taking it would let anyone rotate past per-address limits.)
 */
export function clientAddressOf(req, trust) {
  if (!trust) return req.socket.remoteAddress ?? "unknown";
  try {
    return proxyaddr(req, trust);
  } catch {
    return req.socket.remoteAddress ?? "unknown";
  }
}

/** Whether the peer on the socket is a trusted proxy, whose X-Forwarded-Proto/Host count. */
function fromTrustedProxy(req, trust) {
  return trust !== null && trust(req.socket.remoteAddress ?? "", 0);
}

// A Host (or X-Forwarded-Host) value: a name, an IPv4 address or a bracketed IPv6
// address, with an optional port. Anything else cannot name this service.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** The host the client addressed (the proxy's X-Forwarded-Host when it is trusted), or null when malformed. */
function publicHost(req, trust) {
  const forwarded = fromTrustedProxy(req, trust) ? req.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined;
  const host = forwarded || req.headers.host || "localhost";
  const port = HOST.test(host) ? /:(\d+)$/.exec(host)?.[1] : "x";
  return port === undefined || Number(port) <= 65_535 ? host : null;
}

function requestUrl(req, trust) {
  const proto = fromTrustedProxy(req, trust) && req.headers["x-forwarded-proto"] === "https" ? "https" : "http";
  // A malformed Host was already refused with 400 before routing.
  return new URL(req.url ?? "/", `${proto}://${publicHost(req, trust) ?? "localhost"}`);
}

function requestHeaders(req) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  return headers;
}

/** Node headers for a Fetch response, with ours added and Set-Cookie kept as a list. */
function responseHeaders(response) {
  const headers = { ...BASE_HEADERS };
  for (const [name, value] of response.headers) {
    if (name !== "set-cookie") headers[name] = value;
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  return headers;
}

/**
 * The request body as a web stream that reads `req` only once pulled, and that lets go of
 * it when cancelled (Readable.toWeb would destroy the socket): a route that refuses a body
 * without reading it all leaves the rest to drainRequest, and the client gets its answer.
 */
function bodyStream(req) {
  let listening = false;
  let onData, onEnd, onError;
  const detach = () => {
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onError);
    req.pause();
  };
  return new ReadableStream({
    pull(controller) {
      if (!listening) {
        listening = true;
        onData = (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (controller.desiredSize <= 0) req.pause();
        };
        onEnd = () => controller.close();
        onError = (error) => controller.error(error);
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
      }
      req.resume();
    },
    cancel: detach,
  }, { highWaterMark: 0 }); // pull only when the route reads: nothing is taken unasked
}

function toRequest(req, res, trust, bufferedBody) {
  const url = requestUrl(req, trust);
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const init = { method: req.method, headers: requestHeaders(req), signal: controller.signal };
  if (bufferedBody !== undefined) {
    init.body = bufferedBody;
  } else if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = bodyStream(req);
    init.duplex = "half";
  }
  return new Request(url, init);
}

async function sendResponse(res, response) {
  const headers = responseHeaders(response);
  if (!res.req.complete) {
    // Answered before the body was read: see drainRequest.
    headers.connection = "close";
    await drainRequest(res.req);
    if (res.destroyed) return;
  }
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  res.once("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        // Back-pressure: a slow client slows the producer (exports stream from the database).
        await new Promise((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
        if (res.destroyed) return;
      }
    }
    res.end();
  } catch (error) {
    if (!res.destroyed) {
      console.error("response stream failed:", error);
      res.destroy(error);
    }
  } finally {
    res.off("close", cancel);
  }
}

const MUTATIONS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const BUFFERED_BODY = Symbol.for("lead-capture.bufferedBody");
const DIRECT_BODY_CAP = 1024 * 1024;

/**
 * Resource routes that declare `handle = { directDispatch: true }` and have a static path
 * (the public submit endpoint) are called directly: Remix's router ranks every route on
 * every request, which costs more than the whole endpoint. They are the same route
 * modules, with the same loader and action, that Remix serves everywhere else
 * (see docs/decisions/004-direct-dispatch.md).
 */
function directRoutes(build) {
  const routes = new Map();
  for (const route of Object.values(build.routes)) {
    if (!route.module.handle?.directDispatch || route.module.default) continue;
    const segments = [];
    for (let current = route; current; current = build.routes[current.parentId]) {
      if (current.path) segments.unshift(current.path);
    }
    const pathname = `/${segments.join("/")}`;
    if (/[:*]/.test(pathname)) throw new Error(`directDispatch needs a static path: ${route.id}`);
    routes.set(pathname, route.module);
  }
  return routes;
}

/** Reads a whole request body, up to `cap` bytes; null when it is larger. */
function readBody(req, cap) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > cap) {
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
      } else chunks.push(chunk);
    });
    req.once("end", () => resolve(size > cap ? null : Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

async function dispatchDirect(module, req, res, trust) {
  const mutation = MUTATIONS.has(req.method);
  const handler = mutation ? module.action : module.loader;
  if (!handler) {
    return jsonError(res, 405, "method_not_allowed", `${req.method} is not allowed on this path.`);
  }
  let body;
  if (req.method !== "GET" && req.method !== "HEAD") {
    body = await readBody(req, DIRECT_BODY_CAP);
    if (body === null) {
      return jsonError(res, 413, "payload_too_large", "The request body is too large.");
    }
  }
  // The body goes to the route only through readBodyText (app/utils/api.server.ts), as
  // bytes: no web stream is made for it (docs/decisions/004-direct-dispatch.md).
  const request = new Request(requestUrl(req, trust), { method: req.method, headers: requestHeaders(req) });
  if (body) request[BUFFERED_BODY] = body;
  const context = { clientIp: clientAddressOf(req, trust), cspNonce: "" };
  let response;
  try {
    response = await handler({ request, params: {}, context });
  } catch (thrown) {
    if (!(thrown instanceof Response)) throw thrown;
    response = thrown;
  }
  // Small JSON answers: one write with a Content-Length instead of a chunked stream.
  const payload = req.method === "HEAD" || !response.body ? null : Buffer.from(await response.arrayBuffer());
  await answer(res, response.status, responseHeaders(response), payload);
}

function htmlError(res, status, message) {
  if (res.headersSent) return res.destroy();
  const headers = { ...BASE_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };
  const page = `<!doctype html><meta charset="utf-8"><title>${status}</title><p>${message}</p><p><a href="/">Back</a></p>`;
  return answer(res, status, headers, page);
}

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/**
 * Page actions (the dashboard's and the login form's) take only same-site, well-formed
 * form posts. Remix itself answers a cross-site post with a bare 500 and a page action
 * fails on a body that is not form data; both are the client's fault, so they are
 * refused here, before Remix, with 403, 415 or 400. Returns the body it read, or null
 * when it answered.
 */
async function guardPageMutation(req, res, trust) {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const host = publicHost(req, trust);
    let originHost = null;
    try {
      originHost = origin === "null" ? null : new URL(origin).host;
    } catch {
      originHost = null;
    }
    if (!originHost || originHost !== host) {
      htmlError(res, 403, "Cross-site form posts are not allowed.");
      return null;
    }
  }
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (!FORM_TYPES.has(type)) {
    htmlError(res, 415, "Send the form as application/x-www-form-urlencoded or multipart/form-data.");
    return null;
  }
  const body = await readBody(req, DIRECT_BODY_CAP);
  if (body === null) {
    htmlError(res, 413, "The form is too large.");
    return null;
  }
  try {
    await new Response(body, { headers: { "content-type": req.headers["content-type"] } }).formData();
  } catch {
    htmlError(res, 400, "The form data could not be read.");
    return null;
  }
  return body;
}

function positiveInteger(value, fallback, name) {
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a whole number above 0`);
  return parsed;
}

/** Connection limits for a public endpoint (see .env.example). */
export function serverLimits(source) {
  const limits = {
    headersTimeoutMs: positiveInteger(source.HEADERS_TIMEOUT_MS, 10_000, "HEADERS_TIMEOUT_MS"),
    requestTimeoutMs: positiveInteger(source.REQUEST_TIMEOUT_MS, 30_000, "REQUEST_TIMEOUT_MS"),
    maxConnections: positiveInteger(source.MAX_CONNECTIONS, 1_000, "MAX_CONNECTIONS"),
  };
  // The headers are part of the request: Node refuses a header limit above the request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error("HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS");
  }
  return limits;
}

/** A client that hung up or was cut off mid-request: its own doing, not our failure. */
function isClientAbort(req, error) {
  const code = error?.code ?? error?.cause?.code;
  return (
    req.destroyed ||
    req.aborted ||
    code === "ECONNRESET" ||
    code === "ERR_STREAM_PREMATURE_CLOSE" ||
    error?.message === "aborted"
  );
}

/** The end of a request that threw: one quiet line for a client abort, a 500 otherwise. */
function failed(req, res, error) {
  if (isClientAbort(req, error)) {
    console.log(`client went away: ${req.method} ${req.url?.split("?")[0]}`);
    if (!res.destroyed) res.destroy();
    return;
  }
  console.error("request failed:", error);
  jsonError(res, 500, "internal_error", "Something went wrong on our side.");
}

/**
 * Builds the HTTP server around a Remix build. Returns the server and a `shutdown`
 * that stops accepting, waits for requests in flight, then stops background work.
 */
export async function createAppServer({ buildDir = path.resolve(root, process.env.BUILD_DIR ?? "build") } = {}) {
  const build = await import(pathToFileURL(path.join(buildDir, "server", "index.js")).href);
  const trust = compileTrustProxy(process.env.TRUST_PROXY);
  const limits = serverLimits(process.env);
  const logRequests = process.env.LOG_REQUESTS === "true";
  const handle = createRequestHandler(build, "production");
  const direct = directRoutes(build);
  const assets = sirv(path.join(buildDir, "client"), {
    etag: true,
    gzip: false,
    setHeaders(res, pathname) {
      for (const [name, value] of Object.entries(BASE_HEADERS)) res.setHeader(name, value);
      res.setHeader(
        "Cache-Control",
        pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "public, max-age=3600",
      );
    },
  });

  let inFlight = 0;
  let idle = null;

  const server = http.createServer({
    // Slow clients: headers must arrive within headersTimeout and the whole request
    // within requestTimeout, checked this often (Node's default is every 30 s).
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs / 4),
  }, (req, res) => {
    inFlight++;
    const started = logRequests ? performance.now() : 0;
    res.once("close", () => {
      inFlight--;
      if (logRequests) {
        console.log(`${req.method} ${req.url?.split("?")[0]} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
      }
      if (inFlight === 0 && idle) idle();
    });
    const pathname = req.url?.split("?")[0] ?? "/";
    try {
      decodeURI(pathname);
    } catch {
      // A malformed percent-encoding names no page of ours (the router would log a warning).
      return pathname.startsWith("/api/")
        ? jsonError(res, 400, "bad_request", "The request path is not valid percent-encoding.")
        : htmlError(res, 400, "The address is not valid.");
    }
    if (publicHost(req, trust) === null) {
      return pathname.startsWith("/api/")
        ? jsonError(res, 400, "bad_request", "The Host header is malformed.")
        : htmlError(res, 400, "The Host header is malformed.");
    }
    const directModule = direct.size > 0 ? direct.get(pathname) : undefined;
    if (directModule) {
      dispatchDirect(directModule, req, res, trust).catch((error) => failed(req, res, error));
      return;
    }
    assets(req, res, async () => {
      let bufferedBody;
      if (MUTATIONS.has(req.method) && !req.url?.startsWith("/api/")) {
        try {
          bufferedBody = await guardPageMutation(req, res, trust);
        } catch {
          return htmlError(res, 400, "The request body could not be read.");
        }
        if (bufferedBody === null) return;
      }
      let request;
      try {
        request = toRequest(req, res, trust, bufferedBody);
      } catch {
        return jsonError(res, 400, "bad_request", "The request line or headers are malformed.");
      }
      try {
        const response = await handle(request, {
          clientIp: clientAddressOf(req, trust),
          cspNonce: randomBytes(16).toString("base64"),
        });
        await sendResponse(res, response);
      } catch (error) {
        failed(req, res, error);
      }
    });
  });
  // Requests Node cannot parse (bad framing, oversized headers, timeouts) are answered
  // in the API's error shape instead of Node's bare "400 Bad Request".
  server.on("clientError", (error, socket) => {
    if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy();
    const [status, code, message] =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "request_timeout", "The request took too long to arrive."]
        : error.code === "HPE_HEADER_OVERFLOW"
          ? [431, "headers_too_large", "The request headers are too large."]
          : [400, "bad_request", "The request could not be parsed as HTTP."];
    const requestLine = error.rawPacket?.subarray(0, 64).toString("latin1") ?? "";
    // A page (by the request line, when it could be read) gets a page; anything else the JSON shape.
    const page = /^[A-Z]+ \/(?!api\/)/.test(requestLine);
    const [type, text] = page
      ? ["text/html", `<!doctype html><meta charset="utf-8"><title>${status}</title><p>${message}</p>`]
      : ["application/json", JSON.stringify({ error: { code, message } })];
    // An answer to HEAD carries no body, or the client would read it as a second response.
    const body = requestLine.startsWith("HEAD ") ? "" : text;
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${type}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.keepAliveTimeout = 65_000;
  // Past this many open connections new ones are closed at once, so slow or idle
  // clients cannot exhaust the process's sockets and memory.
  server.maxConnections = limits.maxConnections;

  async function shutdown() {
    await new Promise((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      if (inFlight === 0) resolve();
      else idle = resolve;
      // Requests in flight get 10 s to finish; then the rest are cut.
      setTimeout(() => {
        server.closeAllConnections();
        resolve();
      }, 10_000).unref();
    });
    await build.entry.module.stopBackgroundWork?.();
  }

  return { server, build, shutdown };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  loadEnvFile();
  process.env.NODE_ENV ??= "production";
  const { server, build, shutdown } = await createAppServer();
  const port = Number(process.env.PORT || 3000);
  const host = process.env.HOST || "0.0.0.0";
  server.listen(port, host, async () => {
    const address = server.address();
    const shown = host === "0.0.0.0" || host === "::" ? "localhost" : host;
    console.log(`Lead Capture listening on http://${shown}:${typeof address === "object" ? address?.port : port}`);
    await build.entry.module.startBackgroundWork?.();
  });
  let stopping = false;
  for (const signal of ["SIGTERM", "SIGINT"]) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      console.log(`${signal}: finishing requests in flight, then stopping.`);
      await shutdown();
      process.exit(0);
    });
  }
}

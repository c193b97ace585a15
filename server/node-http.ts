// Between node:http and the Fetch API: a Request from an IncomingMessage (its body read
// only when the route reads it) and a Response written back with back-pressure. A
// refusal sent before the body was read drains the rest first (see drainRequest).
// Why not @remix-run/node-fetch-server: decisions 020 and 047 (measured again after group commit).
import { isApiPath } from "../app/utils/http/request.server";
import { log } from "../app/utils/log.server";
import { DirectRequest } from "./direct-request";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

// Sent with every response; pages add their CSP in app/entry.server.tsx.
export const BASE_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
} as const;

const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
const DRAIN_LIMIT_MS = 5_000;

/**
 * A refusal sent before the body was read (413, 401...) closes the connection, or a
 * client reusing it would wait forever. Closing a socket with the client's data still
 * arriving resets it, and the client, still sending, never reads our answer: so the
 * rest of the body is read and dropped first, up to a bound.
 */
export function drainRequest(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
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

/** Sends a whole (small) answer in one write; see drainRequest for a request not read to its end. */
export async function answer(
  res: ServerResponse,
  status: number,
  headers: OutgoingHttpHeaders,
  payload: string | Buffer | null,
): Promise<void> {
  if (!res.req.complete) {
    headers.connection = "close";
    await drainRequest(res.req);
  }
  if (res.destroyed) return;
  if (payload) headers["content-length"] = Buffer.byteLength(payload);
  res.writeHead(status, headers);
  res.end(payload);
}

export function requestHeaders(req: IncomingMessage): Headers {
  return appendHeaders(new Headers(), req);
}

function appendHeaders(headers: Headers, req: IncomingMessage): Headers {
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  return headers;
}

/** Node headers for a Fetch response, with ours added and Set-Cookie kept as a list. */
export function responseHeaders(response: Response): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { ...BASE_HEADERS };
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
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let listening = false;
  const listeners = {
    data: (_chunk: Buffer) => {},
    end: () => {},
    error: (_error: Error) => {},
    close: () => {},
  };
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!listening) {
          listening = true;
          listeners.data = (chunk) => {
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          };
          let ended = false;
          listeners.end = () => {
            ended = true;
            controller.close();
          };
          listeners.error = (error) => controller.error(error);
          // A client gone before the end of its body: the reader fails instead of waiting forever.
          listeners.close = () => {
            if (!ended) controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
          };
          req.on("data", listeners.data);
          req.once("end", listeners.end);
          req.once("error", listeners.error);
          req.once("close", listeners.close);
        }
        req.resume();
      },
      cancel() {
        req.off("data", listeners.data);
        req.off("end", listeners.end);
        req.off("error", listeners.error);
        req.off("close", listeners.close);
        req.pause();
      },
    },
    { highWaterMark: 0 }, // pull only when the route reads: nothing is taken unasked
  );
}

/**
 * A Fetch Request for `req`, aborted when the client goes away. `bufferedBody` is a body
 * already read (a guarded page post); otherwise the body streams on demand.
 */
export function toRequest(req: IncomingMessage, res: ServerResponse, url: URL, bufferedBody?: Buffer): Request {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const init: RequestInit & { duplex?: "half" } = {
    method: req.method,
    headers: requestHeaders(req),
    signal: controller.signal,
  };
  if (bufferedBody !== undefined) {
    init.body = new Uint8Array(bufferedBody.buffer as ArrayBuffer, bufferedBody.byteOffset, bufferedBody.byteLength);
  } else if (req.method !== "GET" && req.method !== "HEAD") {
    init.body = bodyStream(req);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * A Request for the fast path: a small body already read (see DirectRequest), or streamed.
 * Its headers go straight into the Request's own: a Headers passed in `init` is copied
 * there header by header, a second pass over them per request.
 */
export function toDirectRequest(req: IncomingMessage, res: ServerResponse, url: string, body?: Buffer): Request {
  const onAbort = (abort: () => void) =>
    res.once("close", () => {
      if (!res.writableFinished) abort();
    });
  const init: RequestInit & { duplex?: "half" } = { method: req.method };
  let request: Request;
  if (body !== undefined) {
    const bytes = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    request = new DirectRequest(url, init, onAbort, bytes);
  } else {
    if (req.method !== "GET" && req.method !== "HEAD") {
      init.body = bodyStream(req);
      init.duplex = "half";
    }
    request = new DirectRequest(url, init, onAbort);
  }
  appendHeaders(request.headers, req);
  return request;
}

/** Writes a Fetch Response, streaming its body with back-pressure. */
export async function sendResponse(res: ServerResponse, response: Response): Promise<void> {
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
  const cancel = () => void reader.cancel().catch(() => {});
  res.once("close", cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) {
        // Back-pressure: a slow client slows the producer (exports stream from the database).
        await new Promise<void>((resolve) => {
          res.once("drain", () => resolve());
          res.once("close", () => resolve());
        });
        if (res.destroyed) return;
      }
    }
    res.end();
  } catch (error) {
    if (!res.destroyed) {
      log.error("response stream failed", error);
      res.destroy(error as Error);
    }
  } finally {
    res.off("close", cancel);
  }
}

/** Reads a whole request body, up to `cap` bytes; null when it is larger. */
export function readBody(req: IncomingMessage, cap: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
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

/** An error answer in the API's JSON shape. */
export function jsonError(res: ServerResponse, status: number, code: string, message: string): Promise<void> | void {
  if (res.headersSent) return void res.destroy();
  const headers = { ...BASE_HEADERS, "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
  return answer(res, status, headers, JSON.stringify({ error: { code, message } }));
}

/** An error answer as a small page, for a browser. */
export function htmlError(res: ServerResponse, status: number, message: string): Promise<void> | void {
  if (res.headersSent) return void res.destroy();
  const headers = { ...BASE_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };
  const page = `<!doctype html><meta charset="utf-8"><title>${status}</title><p>${message}</p><p><a href="/">Back</a></p>`;
  return answer(res, status, headers, page);
}

/** The error answer a path deserves: JSON under /api/, a page elsewhere. */
export function refuse(res: ServerResponse, pathname: string, status: number, code: string, message: string) {
  return isApiPath(pathname) ? jsonError(res, status, code, message) : htmlError(res, status, message);
}

// The JSON API's one error shape, and the helpers every /api route uses to read
// its input and answer. Every refusal is {"error": {code, message, details?}}.
import type { z } from "zod";
import { textPolicyIssues, type TextIssue } from "./text-policy";

export type ErrorDetail = { path: string; message: string };

export type ErrorCode =
  | "bad_request"
  | "malformed_json"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "gone"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation_failed"
  | "rate_limited"
  | "not_configured"
  | "internal_error"
  | (string & {});

const STATUS_MESSAGES: Record<number, string> = { 500: "Something went wrong on our side." };

export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  options: { details?: ErrorDetail[]; headers?: HeadersInit } = {},
): Response {
  const headers = new Headers(options.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  const error: { code: string; message: string; details?: ErrorDetail[] } = { code, message };
  if (options.details && options.details.length > 0) error.details = options.details;
  return new Response(JSON.stringify({ error }), { status, headers });
}

/** Stops the route with an error response. */
export function fail(
  status: number,
  code: ErrorCode,
  message: string,
  options?: { details?: ErrorDetail[]; headers?: HeadersInit },
): never {
  throw errorResponse(status, code, message, options);
}

export function json(body: unknown, init: number | ResponseInit = 200): Response {
  const responseInit = typeof init === "number" ? { status: init } : init;
  const headers = new Headers(responseInit.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { ...responseInit, headers });
}

export function zodDetails(error: z.ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
    return { path: path || "(body)", message: issue.message };
  });
}

export function textPolicyDetails(issues: TextIssue[], prefix?: string): ErrorDetail[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join(".") || "(body)",
    message: issue.message,
  }));
}

export function validationFailed(error: z.ZodError, prefix?: string): never {
  fail(422, "validation_failed", "The request has invalid fields.", {
    details: zodDetails(error, prefix),
  });
}

/** Parses a value with a schema (after the text policy) or stops with 422 naming every bad field. */
export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S> {
  const refused = textPolicyIssues(value);
  if (refused.length > 0) {
    fail(422, "validation_failed", "The request has invalid fields.", { details: textPolicyDetails(refused, prefix) });
  }
  const result = schema.safeParse(value);
  if (!result.success) validationFailed(result.error, prefix);
  return result.data;
}

export const DEFAULT_BODY_LIMIT = 64 * 1024;

const BUFFERED_BODY = Symbol.for("lead-capture.bufferedBody");

/**
 * Reads the whole body, refusing more than `limit` bytes with 413 as soon as the limit
 * is passed (the rest is never buffered; server.js closes such a connection).
 */
export async function readBodyBytes(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<Buffer> {
  // server.js reads the body of directly dispatched routes itself and hands the bytes
  // over, so they need not go through a web stream a second time (docs/decisions/004).
  const buffered = (request as unknown as Record<symbol, Buffer | undefined>)[BUFFERED_BODY];
  if (buffered) {
    if (buffered.length > limit) tooLarge(limit);
    return buffered;
  }
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > limit) tooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** readBodyBytes, decoded as UTF-8. */
export async function readBodyText(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<string> {
  return (await readBodyBytes(request, limit)).toString("utf8");
}

function tooLarge(limit: number): never {
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${Math.round(limit / 1024)} KiB`;
  fail(413, "payload_too_large", `The request body is larger than ${size}.`);
}

export function mediaType(request: Request): string {
  return (request.headers.get("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
}

/** Reads a JSON body: 415 for another content type, 413 over the limit, 400 when it does not parse. */
export async function readJsonBody(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const type = mediaType(request);
  if (type !== "application/json" && !type.endsWith("+json")) {
    fail(415, "unsupported_media_type", "Send the body as application/json.");
  }
  return parseJsonText(await readBodyText(request, limit));
}

export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    fail(400, "malformed_json", "The body is not valid JSON.");
  }
}

/**
 * Wraps an /api loader or action: a thrown Response is answered as it is, anything
 * else is logged and answered 500 in the error shape, without internals.
 */
export function apiRoute<Args extends { request: Request }>(
  handler: (args: Args) => Promise<Response> | Response,
) {
  return async (args: Args): Promise<Response> => {
    try {
      return await handler(args);
    } catch (thrown) {
      if (thrown instanceof Response) return thrown;
      if (args.request.signal.aborted) {
        return errorResponse(499, "client_closed", "The client closed the request.");
      }
      console.error(`${args.request.method} ${new URL(args.request.url).pathname} failed:`, thrown);
      return errorResponse(500, "internal_error", STATUS_MESSAGES[500]);
    }
  };
}

export function methodNotAllowed(allowed: string[]): never {
  fail(405, "method_not_allowed", `Use ${allowed.join(" or ")} on this path.`, {
    headers: { Allow: allowed.join(", ") },
  });
}

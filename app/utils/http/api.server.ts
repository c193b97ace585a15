// The JSON API's one error shape, and the helpers every /api route uses to read
// its input and answer. Every refusal is {"error": {code, message, details?}}.
import {
  DomainError,
  parseJson,
  parseOrThrow,
  RateLimited,
  type DomainErrorCode,
  type ErrorDetail,
} from "../domain-error";
import { log } from "../log.server";
import { isNulRefusal, NUL_REFUSED } from "../text-policy";
import { noteClientIp } from "./request.server";
import type { AppLoadContext } from "@remix-run/node";
import type { z } from "zod";

export { zodDetails, type ErrorDetail } from "../domain-error";

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

/** The HTTP status of each refusal the domain code can throw. */
const STATUS_OF: Record<DomainErrorCode, number> = {
  validation_failed: 422,
  captcha_failed: 422,
  ticket_reference_missing: 422,
  malformed_json: 400,
  malformed_body: 400,
  unsupported_media_type: 415,
  not_found: 404,
  form_not_found: 404,
  ticket_not_found: 404,
  field_not_found: 404,
  form_archived: 410,
  forbidden: 403,
  password_required: 403,
  gone: 410,
  conflict: 409,
  version_conflict: 409,
  form_has_leads: 409,
  payload_too_large: 413,
  rate_limited: 429,
};

export function statusOf(error: DomainError): number {
  return STATUS_OF[error.code];
}

/** A domain refusal in the API's error shape. */
export function domainErrorResponse(error: DomainError): Response {
  return errorResponse(statusOf(error), error.code, error.message, {
    details: error.details,
    headers: domainErrorHeaders(error),
  });
}

/** Headers a refusal carries whatever its shape: Retry-After for a rate limit. */
export function domainErrorHeaders(error: DomainError): Record<string, string> {
  return error instanceof RateLimited ? { "Retry-After": String(error.retryAfterSeconds) } : {};
}

/** Parses a value with a schema (after the text policy) or stops with 422 naming every bad field. */
export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown, prefix?: string): z.output<S> {
  return parseOrThrow(schema, value, prefix);
}

export const DEFAULT_BODY_LIMIT = 64 * 1024;

/**
 * Reads the whole body, refusing more than `limit` bytes with 413 as soon as the limit
 * is passed (the rest is never buffered; the server drains, then closes, such a connection).
 */
export async function readBodyBytes(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<Buffer> {
  const length = request.headers.get("Content-Length");
  const declared = length === null ? NaN : Number(length);
  if (Number.isFinite(declared) && declared > limit) tooLarge(limit);
  // A declared length is what arrives (Node's parser holds the client to it), so the body
  // can be read whole; the fast path's Request hands over bytes it already read this way.
  if (Number.isFinite(declared)) {
    const bytes = await request.bytes();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
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

/**
 * Reads the whole body into memory a worker thread can read without a copy (a
 * SharedArrayBuffer, sized from Content-Length), chunk by chunk as it arrives: a large body
 * is never copied in one go on the event loop (24 MiB takes 12 ms to copy here).
 * 413 past `limit`, as readBodyBytes.
 */
export async function readBodyShared(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("Content-Length"));
  if (Number.isFinite(declared) && declared > limit) tooLarge(limit);
  let target = new Uint8Array(new SharedArrayBuffer(Number.isFinite(declared) && declared > 0 ? declared : 64 * 1024));
  let size = 0;
  if (!request.body) return target.subarray(0, 0);
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      await reader.cancel().catch(() => {});
      tooLarge(limit);
    }
    if (size + value.byteLength > target.byteLength) {
      const grown = new Uint8Array(
        new SharedArrayBuffer(Math.min(limit, Math.max(target.byteLength * 2, size + value.byteLength))),
      );
      grown.set(target.subarray(0, size));
      target = grown;
    }
    target.set(value, size);
    size += value.byteLength;
  }
  return target.subarray(0, size);
}

/** readBodyBytes, decoded as UTF-8. */
export async function readBodyText(request: Request, limit = DEFAULT_BODY_LIMIT): Promise<string> {
  return (await readBodyBytes(request, limit)).toString("utf8");
}

function tooLarge(limit: number): never {
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${Math.round(limit / 1024)} KiB`;
  throw new DomainError("payload_too_large", `The request body is larger than ${size}.`);
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
  return parseJson(text);
}

/**
 * Wraps an /api loader or action: a thrown Response is answered as it is, anything
 * else is logged and answered 500 in the error shape, without internals.
 */
export function apiRoute<Args extends { request: Request; context?: AppLoadContext }>(
  handler: (args: Args) => Promise<Response> | Response,
) {
  return async (args: Args): Promise<Response> => {
    noteClientIp(args.request, args.context);
    try {
      return await handler(args);
    } catch (thrown) {
      if (thrown instanceof Response) return thrown;
      if (thrown instanceof DomainError) return domainErrorResponse(thrown);
      // A NUL the route's parsing let through (a query value read as is) is the client's.
      if (isNulRefusal(thrown)) return errorResponse(400, "bad_request", NUL_REFUSED);
      if (args.request.signal.aborted) {
        return errorResponse(499, "client_closed", "The client closed the request.");
      }
      log.error(`${args.request.method} ${new URL(args.request.url).pathname} failed`, thrown);
      return errorResponse(500, "internal_error", STATUS_MESSAGES[500]);
    }
  };
}

export function methodNotAllowed(allowed: string[]): never {
  fail(405, "method_not_allowed", `Use ${allowed.join(" or ")} on this path.`, {
    headers: { Allow: allowed.join(", ") },
  });
}

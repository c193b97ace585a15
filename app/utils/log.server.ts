// The process's one logger (decision 053): readable lines by default, one JSON object a line
// with LOG_FORMAT=json (pino). Messages name what happened and ids; callers never pass a
// lead's answers, an email address, a password, a token or a cookie, so nothing needs
// redacting afterwards. Errors go to stderr, the rest to stdout, in both formats.
import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import pino, { type Logger } from "pino";

type Fields = Record<string, unknown>;

/** A request, named by its id, method and route pattern (never its query string). */
type RequestNames = { requestId: string; method: string; route: string };
/** One answered request, as LOG_REQUESTS logs it. */
type RequestLine = RequestNames & { status: number; durationMs: number };

type State = { logger: Logger | null; json: boolean | null; requests: AsyncLocalStorage<string> };

// The server (build/node) and the app (build/server) are bundled apart, each with its own
// copy of this module: one logger and one request store per process, kept under a global
// symbol, so the app's errors carry the id the server gave the request.
const KEY = Symbol.for("lead-capture.log");
const scope = globalThis as typeof globalThis & { [KEY]?: State };
const state: State = (scope[KEY] ??= { logger: null, json: null, requests: new AsyncLocalStorage<string>() });

/**
 * Whether lines are JSON. Read on the first line, not as the module loads: server/main.ts
 * loads .env after its imports. env.server.ts refuses a LOG_FORMAT other than text or json.
 */
function isJson(): boolean {
  return (state.json ??= process.env.LOG_FORMAT?.trim().toLowerCase() === "json");
}

function jsonLogger(): Logger {
  return (state.logger ??= pino(
    {
      messageKey: "message",
      errorKey: "error",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { error: pino.stdSerializers.errWithCause },
      // The id of the request whose work wrote the line, when there is one. A new object each
      // time: pino merges the line's fields into it.
      mixin: () => {
        const requestId = state.requests.getStore();
        return requestId === undefined ? {} : { requestId };
      },
    },
    // Synchronous writes: a line written just before process.exit is not lost.
    pino.multistream(
      [
        { level: "info", stream: pino.destination({ fd: 1, sync: true }) },
        { level: "warn", stream: pino.destination({ fd: 2, sync: true }) },
      ],
      { dedupe: true },
    ),
  ));
}

/** The text format: today's lines, with any fields after the message as key=value. */
function textLine(message: string, fields: Fields | undefined): string {
  if (!fields) return message;
  const pairs = Object.entries(fields).map(([key, value]) => `${key}=${format("%s", value)}`);
  return pairs.length > 0 ? `${message} (${pairs.join(", ")})` : message;
}

export const log = {
  info(message: string, fields?: Fields): void {
    if (isJson()) jsonLogger().info(fields ?? {}, message);
    else console.log(textLine(message, fields));
  },
  warn(message: string, fields?: Fields): void {
    if (isJson()) jsonLogger().warn(fields ?? {}, message);
    else console.warn(textLine(message, fields));
  },
  /** `error`: what was thrown; its stack is logged with it. */
  error(message: string, error?: unknown, fields?: Fields): void {
    if (isJson()) jsonLogger().error(error === undefined ? (fields ?? {}) : { ...fields, error }, message);
    else if (error === undefined) console.error(textLine(message, fields));
    else console.error(`${textLine(message, fields)}:`, error);
  },
  /** One answered request (LOG_REQUESTS): `GET /api/forms/:id 200 3.1ms` as text. */
  request(line: RequestLine): void {
    if (isJson()) jsonLogger().info(line, "request");
    else console.log(`${line.method} ${line.route} ${line.status} ${line.durationMs.toFixed(1)}ms`);
  },
  /** A client that hung up or was cut off before its answer was sent: its doing, no stack. */
  clientGone(names: RequestNames): void {
    if (isJson()) jsonLogger().info(names, "client went away");
    else console.log(`client went away: ${names.method} ${names.route}`);
  },
};

/**
 * With LOG_FORMAT=json, what Node or a library would print as text (a process warning, a
 * crash's stack, a dependency's own console.warn) is logged as JSON instead, so that every
 * line parses. A crash still ends the process with exit code 1, as Node's own handler would.
 */
export function logProcessEvents(): void {
  if (!isJson()) return;
  const levels = { debug: "info", log: "info", info: "info", warn: "warn", error: "error" } as const;
  for (const [method, level] of Object.entries(levels)) {
    console[method as keyof typeof levels] = (...args: unknown[]) => jsonLogger()[level](format(...args));
  }
  process.removeAllListeners("warning");
  process.on("warning", (warning) => log.warn(warning.message, { warning: warning.name }));
  process.on("uncaughtException", (error, origin) => {
    jsonLogger().fatal({ error, origin }, "the process is ending on an error nothing caught");
    process.exit(1);
  });
}

/** Runs `work` as the request `requestId`: what it logs, however deep, carries the id. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return state.requests.run(requestId, work);
}

/** Runs `work` as no request: background work started by a request logs without its id. */
export function outsideRequest<T>(work: () => T): T {
  return state.requests.exit(work);
}

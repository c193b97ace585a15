// One POST of a webhook: to a checked destination (webhook-destination.server.ts), no
// redirects followed, at most WEBHOOK_TIMEOUT_MS in all, and at most 1 KB of the answer
// read, so a slow, huge or hostile receiver costs one socket for a bounded time.
import http from "node:http";
import https from "node:https";
import { env } from "~/utils/env.server";
import { checkedLookup, literalHostRefused, REFUSED_DESTINATION } from "./webhook-destination.server";

// Connections are kept open between attempts: each new one resolves the name through
// checkedLookup and connects to the address checked, and a kept one stays on that address.
const httpAgent = new http.Agent({ keepAlive: true, lookup: checkedLookup });
const httpsAgent = new https.Agent({ keepAlive: true, lookup: checkedLookup });

/** How much of a receiver's answer is kept. */
export const RESPONSE_BODY_LIMIT = 1024;

export type AttemptResult = {
  ok: boolean;
  /** null when no answer came (time-out, refused destination, connection error). */
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
};

export function postWebhook(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
  const started = performance.now();
  const finish = (result: Omit<AttemptResult, "durationMs" | "ok">): AttemptResult => ({
    ...result,
    ok: result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300,
    durationMs: Math.round(performance.now() - started),
  });
  const url = new URL(target);
  if (literalHostRefused(url)) {
    return Promise.resolve(finish({ statusCode: null, responseBody: null, error: REFUSED_DESTINATION }));
  }
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Omit<AttemptResult, "durationMs" | "ok">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(finish(result));
    };
    const request = (url.protocol === "https:" ? https : http).request(url, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      lookup: checkedLookup,
      agent: url.protocol === "https:" ? httpsAgent : httpAgent,
    });
    const timer = setTimeout(() => {
      request.destroy();
      settle({ statusCode: null, responseBody: null, error: `No answer within ${env.WEBHOOK_TIMEOUT_MS} ms.` });
    }, env.WEBHOOK_TIMEOUT_MS);
    request.on("error", (error: NodeJS.ErrnoException) => {
      const refused = error.code === "EREFUSED_DESTINATION";
      settle({ statusCode: null, responseBody: null, error: refused ? REFUSED_DESTINATION : error.message });
    });
    request.on("response", (response) => {
      const statusCode = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString("utf8");
        settle({ statusCode, responseBody: text, error: null });
      };
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size < RESPONSE_BODY_LIMIT) return;
        // Enough: the rest is not read (the connection is closed, not kept).
        response.destroy();
        done();
      });
      response.on("end", done);
      response.on("error", done);
    });
    request.end(body);
  });
}

// Answers written straight to a socket, before or instead of an HTTP request: requests Node
// cannot parse or that timed out, and connections past a client's share. Each such socket
// is then destroyed: the HTTP server allows half-open sockets, so an answer that only ends
// our side leaves the connection open for as long as the client keeps its side (an
// attacker's 1,000 timed-out connections held every slot for minutes). Decision 035.
import { randomUUID } from "node:crypto";
import http from "node:http";
import ipaddr from "ipaddr.js";
import type { Trust } from "./client-address";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/**
 * Writes a whole HTTP answer and closes the connection completely once it is written. What
 * the client sent meanwhile is read and dropped, so the close is a FIN after our answer, not
 * a reset. Not lingering longer matters: until destroyed, a socket counts against
 * MAX_CONNECTIONS, and a flood of refused connections would fill it.
 */
function answerAndClose(socket: Duplex, status: number, type: string, body: string) {
  socket.on("data", () => {});
  socket.on("error", () => {});
  socket.resume();
  const destroy = () => socket.destroy();
  socket.once("finish", destroy);
  // A client that reads nothing fills its buffers and never lets the answer finish.
  setTimeout(destroy, 1_000).unref();
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${type}; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n` +
      // No request was read, so no proxy's id either: a new one, as on every answer (decision 053).
      `X-Request-Id: ${randomUUID()}\r\n\r\n${body}`,
  );
}

const jsonBody = (code: string, message: string) => JSON.stringify({ error: { code, message } });

/** Requests Node cannot parse (bad framing, oversized headers, timeouts), answered in our shapes. */
export function answerClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) {
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
    : ["application/json", jsonBody(code, message)];
  // An answer to HEAD carries no body, or the client would read it as a second response.
  answerAndClose(socket, status, type, requestLine.startsWith("HEAD ") ? "" : text);
}

/**
 * Whose share a connection counts against: its peer's address, an IPv4 address mapped
 * into IPv6 as the IPv4 one, and an IPv6 address by its /64 (one subscriber's usual
 * allocation: counting single IPv6 addresses would give one client 2^64 shares).
 */
export function connectionOwner(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? "unknown";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const groups = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${groups.join(":")}::/64`;
}

/**
 * Caps the connections each client holds open at once (MAX_CONNECTIONS_PER_CLIENT), beside
 * Node's cap on all of them (MAX_CONNECTIONS): one client cannot take every slot. The
 * client is the socket's peer, as that is all a connection knows before its first request;
 * a trusted proxy's connections (TRUST_PROXY) carry many clients and are not capped here.
 * A connection past the share is answered 429 and closed.
 */
export function capConnectionsPerClient(server: http.Server, perClient: number, trust: Trust | null) {
  const open = new Map<string, number>();
  // The HTTP server's own listener takes each socket that our check lets through.
  const [serveHttp] = server.listeners("connection") as Array<(socket: Socket) => void>;
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (trust && peer && trust(peer, 0)) return serveHttp.call(server, socket);
    const owner = connectionOwner(peer);
    const held = open.get(owner) ?? 0;
    if (held >= perClient) {
      const message = "This address has too many connections open; close some and retry.";
      return answerAndClose(socket, 429, "application/json", jsonBody("too_many_connections", message));
    }
    open.set(owner, held + 1);
    socket.once("close", () => {
      const left = (open.get(owner) ?? 1) - 1;
      if (left > 0) open.set(owner, left);
      else open.delete(owner);
    });
    serveHttp.call(server, socket);
  });
}

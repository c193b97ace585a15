// The HTTP server as a public endpoint meets it: malformed Host headers, slow clients,
// too many connections, clients that hang up, and forwarded addresses.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../support/http";
import { createForm } from "../support/leads";
import { startServer, type TestServer } from "../support/server";

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ HEADERS_TIMEOUT_MS: "1000", REQUEST_TIMEOUT_MS: "2000", MAX_CONNECTIONS: "20" });
});
afterAll(async () => {
  await server?.stop();
});

function addressOf(url: string) {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

/** Sends raw bytes and resolves with everything the server wrote before it closed (or `waitMs` passed). */
function raw(url: string, text: string, waitMs = 5_000): Promise<{ reply: string; closedAfterMs: number | null }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(addressOf(url), () => socket.write(text));
    let reply = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ reply, closedAfterMs: null });
    }, waitMs);
    socket.on("data", (chunk) => (reply += chunk.toString("latin1")));
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ reply, closedAfterMs: Date.now() - started });
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      if ((error as NodeJS.ErrnoException).code === "ECONNRESET")
        resolve({ reply, closedAfterMs: Date.now() - started });
      else reject(error);
    });
  });
}

const statusOf = (reply: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);

describe("a malformed Host header", () => {
  const hosts = ["[", "a b", "a@b", "%", "evil.example/x", "a:b:c", "evil.example:99999"];
  const routes = [
    ["POST", "/api/leads/submit"],
    ["GET", "/api/leads"],
    ["GET", "/api/forms"],
    ["GET", "/healthz"],
    ["GET", "/login"],
    ["POST", "/login"],
    ["GET", "/"],
  ] as const;

  it("answers 400 on every route, directly dispatched or not, JSON under /api", async () => {
    for (const host of hosts) {
      for (const [method, path] of routes) {
        const body = method === "POST" ? "{}" : "";
        const { reply } = await raw(
          server.url,
          `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
        );
        expect(statusOf(reply), `${method} ${path} with Host ${host}`).toBe(400);
        if (path.startsWith("/api/")) expect(reply).toContain('"code":"bad_request"');
      }
    }
    expect(server.output()).not.toMatch(/request failed/);
  });

  it("still serves well-formed hosts: names, IPv4, bracketed IPv6, with ports", async () => {
    for (const host of ["localhost", "127.0.0.1:3000", "[::1]:8080", "leads.example.com"]) {
      const { reply } = await raw(server.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(statusOf(reply), host).toBe(200);
    }
  });
});

describe("a malformed request target", () => {
  const targets = [
    "//",
    "///",
    "//a:b",
    "//evil.example/healthz",
    "/\\evil.example/x",
    "/..//x",
    "*",
    "http://x/healthz",
  ];

  it("answers 400 in the JSON error shape, or as a page to a browser, never a 500", async () => {
    for (const target of targets) {
      for (const method of ["GET", "POST", "HEAD"]) {
        const { reply } = await raw(
          server.url,
          `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        );
        expect(statusOf(reply), `${method} ${target}`).toBe(400);
        if (method !== "HEAD") expect(reply, `${method} ${target}`).toContain('{"error":{"code":"bad_request"');
      }
      const page = await raw(
        server.url,
        `GET ${target} HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\nConnection: close\r\n\r\n`,
      );
      expect(statusOf(page.reply), target).toBe(400);
      expect(page.reply).toContain("text/html");
    }
    expect(server.output()).not.toMatch(/request failed|Invalid URL/);
  });

  it("still serves paths with a double slash later on, and a query with one", async () => {
    for (const target of ["/healthz?next=//x", "/healthz?a=b//c"]) {
      const { reply } = await raw(server.url, `GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(statusOf(reply), target).toBe(200);
    }
  });
});

describe("slow clients", () => {
  it("closes a connection whose headers do not arrive within HEADERS_TIMEOUT_MS", async () => {
    const { reply, closedAfterMs } = await raw(server.url, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n", 6_000);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeLessThan(4_000);
    if (reply) expect(statusOf(reply)).toBe(408);
  });

  it("closes a connection whose body does not arrive within REQUEST_TIMEOUT_MS", async () => {
    const { closedAfterMs } = await raw(
      server.url,
      'POST /api/leads/submit HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"formId":',
      8_000,
    );
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs!).toBeGreaterThanOrEqual(1_500);
    expect(closedAfterMs!).toBeLessThan(5_500);
  });

  it("logs a client that hangs up mid-body as one quiet line, without a stack", async () => {
    const before = server.output().length;
    await new Promise<void>((resolve) => {
      const socket = net.connect(addressOf(server.url), () => {
        socket.write(
          'POST /api/leads/submit HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"a":',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const printed = server.output().slice(before);
    expect(printed).toContain("client went away: POST /api/leads/submit");
    expect(printed).not.toMatch(/\n\s+at /); // no stack trace
    expect(printed).not.toContain("request failed");
  });
});

describe("open connections", () => {
  it("closes connections past MAX_CONNECTIONS and serves again once some close", async () => {
    const capped = await startServer({ MAX_CONNECTIONS: "3" });
    const sockets: net.Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const socket = net.connect(addressOf(capped.url));
        await new Promise((resolve) => socket.once("connect", resolve));
        sockets.push(socket);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      const refused = await raw(
        capped.url,
        "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        3_000,
      );
      expect(refused.reply).toBe("");
      expect(refused.closedAfterMs).not.toBeNull();

      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const served = await raw(capped.url, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
      expect(statusOf(served.reply)).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.stop();
    }
  });
});

describe("client addresses behind proxies", () => {
  async function submitsAllowedWith(env: Record<string, string>, forwardedFor: (i: number) => string) {
    const proxied = await startServer({ SUBMIT_RATE_LIMIT_PER_MINUTE: "3", ...env });
    try {
      const form = await createForm("Proxied", [[{ key: "name", label: "Name", type: "text", required: true }]]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await apiClient(proxied.url)(
          "POST",
          "/api/leads/submit",
          { formId: form.id, data: { name: `n${i}` } },
          {
            "X-Forwarded-For": forwardedFor(i),
          },
        );
        statuses.push(res.status);
      }
      return statuses;
    } finally {
      await proxied.stop();
    }
  }

  it("takes the rightmost untrusted X-Forwarded-For entry, so rotating the leftmost one bypasses no limit", async () => {
    // The client invents the first entry; our proxy (the socket's peer) appended the real one.
    const rotating = (i: number) => `10.9.${i}.1, 203.0.113.50`;
    expect(await submitsAllowedWith({ TRUST_PROXY: "true" }, rotating)).toEqual([201, 201, 201, 429, 429, 429]);
    expect(await submitsAllowedWith({ TRUST_PROXY: "loopback" }, rotating)).toEqual([201, 201, 201, 429, 429, 429]);
  });

  it("counts distinct real clients separately behind a trusted proxy chain", async () => {
    // Two proxies: ours appends the address of the one in front (trusted by CIDR).
    const distinct = (i: number) => `198.51.100.${i}, 10.0.0.7`;
    expect(await submitsAllowedWith({ TRUST_PROXY: "loopback, 10.0.0.0/8" }, distinct)).toEqual(Array(6).fill(201));
  });

  it("ignores X-Forwarded-For entirely when no proxy is trusted", async () => {
    const spoofed = (i: number) => `198.51.100.${i}`;
    expect(await submitsAllowedWith({ TRUST_PROXY: "false" }, spoofed)).toEqual([201, 201, 201, 429, 429, 429]);
  });
});

describe("requests that are not HTTP", () => {
  it("answers unparseable requests with 400 in the error shape, not Node's bare page", async () => {
    for (const text of [
      "GARBAGE\r\n\r\n",
      "GET /api/leads HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n",
      "GET /api/\u0001 HTTP/1.1\r\n\r\n",
    ]) {
      const { reply } = await raw(server.url, text);
      expect(statusOf(reply), JSON.stringify(text)).toBe(400);
      expect(reply).toContain("application/json");
      expect(reply).toContain('{"error":{"code":"bad_request"');
    }
  });

  it("answers headers larger than Node accepts with 431 in the error shape", async () => {
    const { reply } = await raw(
      server.url,
      `GET /api/leads HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(statusOf(reply)).toBe(431);
    expect(reply).toContain('"code":"headers_too_large"');
    const page = await raw(
      server.url,
      `GET /leads HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(statusOf(page.reply)).toBe(431);
    expect(page.reply).toContain("text/html");
  });
});

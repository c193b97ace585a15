// Refused destinations at delivery time, against a real receiver on this machine: a
// loopback literal and a name that resolves to loopback are never connected to (the
// unit tests run without WEBHOOK_ALLOW_PRIVATE).
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "~/webhooks/webhook-client.server";
import { isAllowedAddress, REFUSED_DESTINATION } from "~/webhooks/webhook-destination.server";
import type { AddressInfo } from "node:net";

let server: http.Server;
let port: number;
let requests = 0;

beforeAll(async () => {
  server = http.createServer((_, response) => {
    requests++;
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("isAllowedAddress", () => {
  it("allows public unicast addresses only", () => {
    for (const address of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"])
      expect(isAllowedAddress(address), address).toBe(true);
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00:ec2::254",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::7f00:1",
      "::a00:1",
      "not an address",
    ])
      expect(isAllowedAddress(address), address).toBe(false);
  });
});

describe("postWebhook to a refused destination", () => {
  it("never connects to a loopback literal or to a name resolving to loopback", async () => {
    for (const host of ["127.0.0.1", "localhost", "[::1]"]) {
      const result = await postWebhook(`http://${host}:${port}/hook`, {}, "{}");
      expect(result, host).toMatchObject({ ok: false, statusCode: null, error: REFUSED_DESTINATION });
    }
    expect(requests).toBe(0);
  });
});

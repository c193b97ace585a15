// A real HTTP receiver for webhook tests: records every request, answers as told.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type Received = { path: string; headers: Record<string, string>; body: string; at: number };
export type Answer = (request: Received, response: http.ServerResponse) => void;

export type Receiver = {
  url: string;
  received: Received[];
  /** How the next requests are answered (default: 204). */
  answer: Answer;
  close: () => Promise<void>;
};

export async function startReceiver(answer: Answer = (_, response) => response.writeHead(204).end()) {
  const sockets = new Set<Socket>();
  const receiver: Receiver = { url: "", received: [], answer, close: async () => {} };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const received: Received = {
        path: request.url ?? "/",
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      receiver.received.push(received);
      receiver.answer(received, response);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return receiver;
}

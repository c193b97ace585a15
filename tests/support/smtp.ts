// A real SMTP server for the support tests (smtp-server), keeping what arrives parsed
// by mailparser. `rejectNext` makes it answer the next deliveries with a 451.
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

export type TestSmtp = {
  /** SMTP_URL for the app (plain SMTP, no STARTTLS). */
  url: string;
  received: ParsedMail[];
  /** How many deliveries were refused so far. */
  rejected: () => number;
  rejectNext: (count: number) => void;
  /** Makes the next delivery take `ms` before it is accepted (a slow server). */
  delayNext: (ms: number) => void;
  /** How many deliveries have started (DATA received) so far. */
  started: () => number;
  close: () => Promise<void>;
};

export async function startSmtp(): Promise<TestSmtp> {
  const received: ParsedMail[] = [];
  let toReject = 0;
  let rejected = 0;
  let delay = 0;
  let started = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      started++;
      const wait = delay;
      delay = 0;
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (toReject > 0) {
          toReject--;
          rejected++;
          return callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
        }
        const body = Buffer.concat(chunks);
        setTimeout(
          () =>
            void simpleParser(body).then(
              (mail) => {
                received.push(mail);
                callback();
              },
              (error: Error) => callback(error),
            ),
          wait,
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?ignoreTLS=true`,
    received,
    rejected: () => rejected,
    rejectNext: (count) => {
      toReject = count;
    },
    delayNext: (ms) => {
      delay = ms;
    },
    started: () => started,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

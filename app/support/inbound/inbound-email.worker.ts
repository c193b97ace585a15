// Runs in a worker thread (app/support/inbound/inbound-worker.server.ts): everything an inbound
// email costs in CPU. A 25 MB post takes JSON.parse, multipart parsing and base64 decoding
// past what the event loop may spend on a request, and the quotation and HTML libraries
// can take seconds on hostile input (patterns that backtrack, very deep HTML). Here none
// of it holds the server, and the pool stops a task that runs past its budget.
// Built to build/node/workers/ by vite.node.config.ts.
import { cleanEmailBody, type CleanedBody } from "~/support/inbound/email-body";
import { decodeInbound } from "~/support/inbound/inbound-payload";
import type { DecodedEmail } from "~/support/inbound/inbound-types";
import { DomainError } from "~/utils/domain-error";

/** A DomainError as plain data: an Error's class does not survive the crossing to the main thread. */
export type Refusal = ReturnType<DomainError["toJSON"]>;

export type WorkerResult<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

// The body parts stay here: the main thread needs only what cleaning made of them.
export type ParsedEmail = Omit<DecodedEmail, "body"> & { cleaned: CleanedBody };

type Input = { bytes: Uint8Array; contentType: string };

function refusalOf(thrown: unknown): Refusal {
  if (!(thrown instanceof DomainError)) throw thrown;
  return thrown.toJSON();
}

/** Reads the post and cleans its body: the usual case, one round trip. */
export async function parse({ bytes, contentType }: Input): Promise<WorkerResult<ParsedEmail>> {
  try {
    const { body, ...email } = await decodeInbound(bytes, contentType);
    return { ok: true, value: { ...email, cleaned: cleanEmailBody(body) } };
  } catch (thrown) {
    return { ok: false, refusal: refusalOf(thrown) };
  }
}

/** Reads the post only (linear work): for an email whose body could not be cleaned in time. */
export async function decode({ bytes, contentType }: Input): Promise<WorkerResult<DecodedEmail>> {
  try {
    return { ok: true, value: await decodeInbound(bytes, contentType) };
  } catch (thrown) {
    return { ok: false, refusal: refusalOf(thrown) };
  }
}

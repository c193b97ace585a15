// The shapes an inbound email takes on its way in, shared by the payload's decoder
// (inbound-payload.ts) and the providers' readers (inbound-providers.ts,
// inbound-form-providers.ts), so that neither imports the other's module for a type.

export type InboundProvider = "json" | "sendgrid" | "postmark" | "mailgun" | "mime";

/**
 * What the receiving provider said about the sender's domain, taken only from where that
 * provider writes it (inbound-providers.ts, inbound-form-providers.ts); never from a header
 * the sender could have written. Whether it is believed is sender-trust.server.ts's call.
 */
export type AuthEvidence = {
  /** The topmost Authentication-Results header (RFC 8601) of the provider's header block. */
  authenticationResults?: string;
  /** The provider's SPF verdict ("pass", "fail", ...), with the envelope sender it was for. */
  spf?: { result: string; envelopeFrom?: string };
  /** The provider's DKIM verdicts, with the signing domain when known. */
  dkim?: Array<{ domain?: string; result: string }>;
};

export type InboundAttachment = { filename: string; contentType: string; data: Uint8Array };

/** An inbound email as read from the post, before its body is cleaned. */
export type DecodedEmail = {
  provider: InboundProvider;
  /** The sender's address, lower-cased. */
  from: string;
  subject: string;
  /** The body parts as received (each cut at BODY_TEXT_LIMIT) and a provider's stripped reply. */
  body: { text?: string; html?: string; stripped?: string };
  messageId: string | null;
  isAutoReply: boolean;
  /** Precedence: list: no acknowledgement to a new ticket from it (decision 063). */
  isListMail: boolean;
  /** A bounce: a null return path (`<>`), a delivery status report, or MAILER-DAEMON (decision 063). */
  isBounce: boolean;
  /** The provider's or the receiving server's spam verdict said spam (decision 063). */
  spam: boolean;
  /** Every address it was delivered to: To, Cc and the envelope recipients, lower-cased. */
  recipients: string[];
  /** The Message-IDs it answers (In-Reply-To and References), bare and lower-cased. */
  answers: string[];
  /** What the provider said about the sender (SPF, DKIM, DMARC). */
  auth: AuthEvidence;
  attachments: InboundAttachment[];
  /** What of the email was not kept (attachments over the limit, a cut body), for the thread to say. */
  notKept: string[];
  /** SHA-256 of the body parts and attachments as received: a redelivery without Message-ID has the same. */
  contentDigest: string;
};

/** Header names lower-cased, the first value of each. */
export type HeaderMap = Map<string, string>;

// planer ships no types: the one function used here (app/support/inbound/email-body.ts).
declare module "planer" {
  const planer: {
    /** The message without quoted history; for text/html, a serialized document. */
    extractFrom(body: string, contentType: "text/plain" | "text/html", document?: Document): string;
  };
  export default planer;
}

// Page loaders and actions (the dashboard, the hosted form): a DomainError the domain code
// throws becomes the page's error answer with the status the API would give it (404 shows
// the route's "not found", 422 and 409 the error page with the message), not a 500; so
// does a NUL that reached PostgreSQL (400), as in the API.
import { DomainError } from "../domain-error";
import { isNulRefusal, NUL_REFUSED } from "../text-policy";
import { domainErrorHeaders, statusOf } from "./api.server";

export function page<Args, Result>(handler: (args: Args) => Promise<Result>): (args: Args) => Promise<Result> {
  return async (args) => {
    try {
      return await handler(args);
    } catch (thrown) {
      if (isNulRefusal(thrown)) throw new Response(NUL_REFUSED, { status: 400 });
      if (!(thrown instanceof DomainError)) throw thrown;
      throw new Response(thrown.message, {
        status: statusOf(thrown),
        headers: { "Content-Type": "text/plain; charset=utf-8", ...domainErrorHeaders(thrown) },
      });
    }
  };
}

/** The Retry-After an action answered with, for a page route's `headers` export (Remix drops it otherwise). */
export function retryAfterOf(actionHeaders: Headers): Record<string, string> {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : {};
}

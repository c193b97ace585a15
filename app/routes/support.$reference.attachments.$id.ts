// GET: a file that came with a customer's email, for staff (a session, or the support API
// key). Always a download, never shown inline: the bytes are a stranger's, so the browser
// is told not to sniff them and not to run anything in them.
import contentDisposition from "content-disposition";
import { authorize, requireStaff } from "~/staff/auth.server";
import { attachmentStream } from "~/support/attachment-store.server";
import { getAttachment } from "~/support/support.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

/** The API's refusal of a wrong key, as plain text: this is a page address, not /api/. */
async function asText(thrown: unknown): Promise<never> {
  if (!(thrown instanceof Response) || !thrown.headers.get("Content-Type")?.includes("json")) throw thrown;
  const { error } = (await thrown.json()) as { error: { message: string } };
  const headers = new Headers(thrown.headers);
  headers.set("Content-Type", "text/plain; charset=utf-8");
  throw new Response(error.message, { status: thrown.status, headers });
}

// page(): too many wrong keys (RateLimited) answers 429 with Retry-After, as text.
export const loader = page(async ({ request, params, context }: LoaderFunctionArgs) => {
  // A browser follows the thread's link with its session (and is sent to log in without
  // one); an API client presents the bearer key.
  if (request.headers.has("Authorization")) await requireStaff(request, context, "support.read").catch(asText);
  else await authorize(request, "support.read");
  const file = await getAttachment(params.reference!, params.id!);
  if (!file)
    throw new Response("No such attachment.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
    });
  return new Response(attachmentStream(file.id), {
    headers: {
      "Content-Type": file.contentType,
      "Content-Length": String(file.size),
      "Content-Disposition": contentDisposition(file.filename, { type: "attachment" }),
      "Content-Security-Policy": "sandbox; default-src 'none'",
      "Cache-Control": "private, no-store",
    },
  });
});

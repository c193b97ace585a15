// GET: a message's whole text as received, for staff, as a download. The thread page shows
// only the first part of a long message (decision 035), and links here for the rest.
import contentDisposition from "content-disposition";
import { authorize } from "~/staff/auth.server";
import { getMessageText } from "~/support/support.server";
import { page } from "~/utils/http/page.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = page(async ({ request, params }: LoaderFunctionArgs) => {
  await authorize(request, "support.read");
  const message = await getMessageText(params.reference!, params.id!);
  if (!message) {
    throw new Response("No such message.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  return new Response(message.text, {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Content-Disposition": contentDisposition(`${message.reference}-message-${params.id}.txt`, {
        type: "attachment",
      }),
      "Content-Security-Policy": "sandbox; default-src 'none'",
      "Cache-Control": "private, no-store",
    },
  });
});

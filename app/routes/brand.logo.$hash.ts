// GET /brand/logo/:hash: the company's logo, for the public pages. The hash in the path
// changes with the image, so a browser may keep it for good; an old hash answers 404.
// The bytes were checked to be an image when stored (brand.server.ts); the browser is
// still told not to sniff them, and not to run anything in them.
import { getBrandLogo } from "~/brand/brand.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export async function loader({ params }: LoaderFunctionArgs) {
  const logo = await getBrandLogo();
  if (!logo || logo.hash !== params.hash) {
    return new Response("No such logo.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  return new Response(new Uint8Array(logo.bytes), {
    headers: {
      "Content-Type": logo.type,
      "Content-Length": String(logo.bytes.length),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox; default-src 'none'",
    },
  });
}

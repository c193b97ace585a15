// GET /embed.js: the script site owners add with one tag (app/embed/embed.ts, built to
// build/embed/embed.js). Usage and rules: docs/api/lead-capture.md.
import fs from "node:fs";
import { builtFile } from "~/utils/http/build-files.server";

let script: string | undefined;

export function loader() {
  script ??= fs.readFileSync(builtFile("embed/embed.js"), "utf8");
  return new Response(script, {
    headers: {
      "Content-Type": "application/javascript; charset=utf-8",
      // Short, so a fix reaches every site within minutes.
      "Cache-Control": "public, max-age=300",
      "Access-Control-Allow-Origin": "*",
    },
  });
}

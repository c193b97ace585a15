// Any /api path no other route claims: a JSON 404, never the HTML error page.
import { apiRoute, fail } from "~/utils/http/api.server";

const notFound = apiRoute(({ request }: { request: Request }) =>
  fail(404, "not_found", `No API endpoint at ${new URL(request.url).pathname}.`),
);

export const loader = notFound;
export const action = notFound;

import { requireUser } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed } from "~/utils/http/api.server";
import type { LoaderFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const user = await requireUser(request);
  return json({ user });
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));

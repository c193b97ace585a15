import type { LoaderFunctionArgs } from "@remix-run/node";
import { apiRoute, json, methodNotAllowed } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  const user = await requireUser(request);
  return json({ user });
});

export const action = apiRoute(() => methodNotAllowed(["GET"]));

// GET /api/settings/branding: the company's name, accent colour and logo address.
// PATCH {name?, accentColor?, logo?}: changes them (logo: a base64 data: URL, or null).
import { auditor } from "~/audit/audit.server";
import { LOGO_MAX_BYTES } from "~/brand/brand-schema";
import { getBrand, updateBrand } from "~/brand/brand.server";
import { authorize } from "~/staff/auth.server";
import { apiRoute, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";

// A 512 KiB logo in base64, and the rest of the body.
const BODY_LIMIT = Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 4 * 1024;

export const loader = apiRoute(async ({ request }: LoaderFunctionArgs) => {
  await authorize(request, "branding.manage");
  return json(await getBrand());
});

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "PATCH") methodNotAllowed(["GET", "PATCH"]);
  const audit = auditor(context, await authorize(request, "branding.manage"));
  return json(await updateBrand(await readJsonBody(request, BODY_LIMIT), audit));
});

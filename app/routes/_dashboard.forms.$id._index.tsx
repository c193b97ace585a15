// /forms/:id opens the builder on its first section, keeping the query (an old link's
// parameters still reach the section).
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { authorize } from "~/staff/auth.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "forms.read");
  const { search } = new URL(request.url);
  return redirect(`/forms/${encodeURIComponent(params.id!)}/fields${search}`);
}

// /forms/:id opens the builder on its first section.
import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { authorize } from "~/utils/auth.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  await authorize(request, "forms.read");
  return redirect(`/forms/${encodeURIComponent(params.id!)}/fields`);
}

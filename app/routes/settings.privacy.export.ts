// POST /settings/privacy/export (email): the export form of /settings/privacy, answered with
// the person's data as a JSON file to save (decision 069). A plain form post, so it works
// without JavaScript; the address travels in the body, not in a URL that logs keep. A refusal
// goes back to the page with the reason.
import { redirect } from "@remix-run/node";
import { actorOf } from "~/audit/audit.server";
import { exportPerson } from "~/privacy/person-data.server";
import { authorize } from "~/staff/auth.server";
import { DomainError } from "~/utils/domain-error";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = () => redirect("/settings/privacy");

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await authorize(request, "people.manage");
  const form = await request.formData();
  try {
    const document = await exportPerson({ email: form.get("email") ?? "" }, actorOf(user, context));
    const day = document.exportedAt.slice(0, 10);
    return new Response(JSON.stringify(document, null, 2), {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="personal-data-${day}.json"`,
        "Cache-Control": "no-store",
      },
    });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const reason = error.details[0]?.message ?? error.message;
    return redirect(`/settings/privacy?exportError=${encodeURIComponent(reason)}`, 303);
  }
}

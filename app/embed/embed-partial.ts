// Partial capture in an embedded form (issue 31, item 7; decision 060; part of /embed.js): on
// a form whose markup says `data-capture-partial` (the builder's snippet does when the form's
// settings.capturePartial is on), Next on a step posts the answers so far to
// POST /api/leads/partial once they hold a valid email, as the hosted page does. The id that
// comes back goes into a hidden `_partialId` field, so the next save updates the same partial
// and the Send (by the script or as a plain post) finishes it. Best effort: a refusal or a
// network failure changes nothing for the visitor.
import { PARTIAL_FIELD } from "~/leads/lead-fields";
import { STEP_DONE_EVENT } from "./embed-steps";

/** Keeps the partial of `form` at each completed step, if its markup asks for it. */
export function watchPartial(form: HTMLFormElement, partialUrl: string): void {
  if (!form.hasAttribute("data-capture-partial")) return;
  form.addEventListener(STEP_DONE_EVENT, () => {
    const email = form.querySelector<HTMLInputElement>("input[type=email]:not(:disabled)");
    if (!email?.value || !email.validity.valid) return;
    // Taken now, before the next step is enabled: only the completed steps' answers.
    void savePartial(form, new FormData(form), partialUrl);
  });
}

async function savePartial(form: HTMLFormElement, answers: FormData, partialUrl: string): Promise<void> {
  try {
    const response = await fetch(partialUrl, {
      method: "POST",
      body: answers,
      headers: { Accept: "application/json" },
      credentials: "omit",
      mode: "cors",
    });
    if (!response.ok) return;
    const body = (await response.json()) as { partialId?: unknown };
    if (typeof body.partialId === "string") keepPartialId(form, body.partialId);
  } catch {
    // Offline or blocked: the visitor's own Send still carries every answer.
  }
}

function keepPartialId(form: HTMLFormElement, partialId: string): void {
  let input = form.querySelector<HTMLInputElement>(`input[type=hidden][name="${PARTIAL_FIELD}"]`);
  if (!input) {
    input = document.createElement("input");
    input.type = "hidden";
    input.name = PARTIAL_FIELD;
    form.append(input);
  }
  input.value = partialId;
}

/** After the lead is in: a form the site shows again starts a new partial. */
export function forgetPartial(form: HTMLFormElement): void {
  form.querySelector(`input[type=hidden][name="${PARTIAL_FIELD}"]`)?.remove();
}

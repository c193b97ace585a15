// Reads a page's form controls as a browser without JavaScript shows them: whether a control
// is marked invalid, the message it is described by, and the value it holds.
import { JSDOM } from "jsdom";

export type ShownField = { invalid: boolean; message: string; value: string | null };

/** The control with `id` in `html`: its aria-invalid, its aria-describedby's text, its value. */
export function shownField(html: string, id: string): ShownField {
  const document = new JSDOM(html).window.document;
  const control = document.getElementById(id);
  if (!control) throw new Error(`No element with id ${JSON.stringify(id)} on the page.`);
  const message = (control.getAttribute("aria-describedby") ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((describedBy) => document.getElementById(describedBy)?.textContent ?? "")
    .join(" ");
  const value = control.tagName === "TEXTAREA" ? (control.textContent ?? "") : control.getAttribute("value");
  const selected =
    control.tagName === "SELECT" ? (control.querySelector("option[selected]")?.getAttribute("value") ?? null) : value;
  return { invalid: control.getAttribute("aria-invalid") === "true", message, value: selected };
}

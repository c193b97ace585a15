// Text into HTML, for the few places that write markup as strings (the embed snippet, the
// submit endpoint's refusal page). Client-safe: no server imports.

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes the characters that end text or an attribute value (both quote styles). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

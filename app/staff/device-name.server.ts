// A session's browser in words, "Chrome on Windows", from its User-Agent header, read by bowser
// (MIT; docs/decisions/042-user-agent-parser.md). Server-only: the parser stays out of the page's
// bundle, and the page is sent the words with the raw header beside them.
import Bowser from "bowser";

/** Apple's phones and tablets are known by their model ("Safari on iPhone"), other systems by name. */
function systemOf(parsed: Bowser.Parser.ParsedResult): string {
  const { model, vendor } = parsed.platform;
  if (vendor === "Apple" && (model === "iPhone" || model === "iPad")) return model;
  return parsed.os.name ?? "";
}

/** "Chrome on Windows", "curl" for a tool that names itself, or "Unknown browser". */
export function deviceName(userAgent: string | null | undefined): string {
  const header = userAgent?.trim() ?? "";
  if (!header) return "Unknown browser";
  const parsed = Bowser.parse(header);
  // A command-line client names itself first: "curl/8.5.0", "python-requests/2.32".
  const browser = parsed.browser.name || /^([A-Za-z][\w.-]*)\/\d/.exec(header)?.[1] || "Unknown browser";
  const system = systemOf(parsed);
  return system ? `${browser} on ${system}` : browser;
}

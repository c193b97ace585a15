// Linear scans of HTML, for what may not be handed to a parser: a plain excerpt of an
// email that could not be cleaned, and a check for nesting so deep that converting it
// would take seconds and a heap whose release stalls the server (150,000 nested <div>s).

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr",
]);

/** Whether elements nest deeper than `limit` anywhere in the HTML (stops counting there). */
export function nestsDeeperThan(html: string, limit: number): boolean {
  let depth = 0;
  for (let at = html.indexOf("<"); at !== -1; at = html.indexOf("<", at + 1)) {
    const next = html.charCodeAt(at + 1);
    if (next === 47 /* / */) {
      if (depth > 0) depth--;
      continue;
    }
    // Only "<letter": comments, doctypes and stray "<" open nothing.
    if (!((next >= 65 && next <= 90) || (next >= 97 && next <= 122))) continue;
    let end = at + 1;
    while (end < html.length && end - at < 20 && /[a-zA-Z0-9]/.test(html[end])) end++;
    if (VOID.has(html.slice(at + 1, end).toLowerCase())) continue;
    const close = html.indexOf(">", end);
    if (close !== -1 && html.charCodeAt(close - 1) === 47) continue;
    if (++depth > limit) return true;
  }
  return false;
}

/** The text of HTML with its tags dropped and blanks folded, up to `max` characters. */
export function stripTags(html: string, max: number): string {
  let out = "";
  let inTag = false;
  for (let i = 0; i < html.length && out.length < max; i++) {
    const char = html[i];
    if (char === "<") inTag = true;
    else if (char === ">") {
      inTag = false;
      out += " ";
    } else if (!inTag) out += char;
  }
  return out.replace(/\s+/g, " ").trim();
}

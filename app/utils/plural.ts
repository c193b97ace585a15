// Counts in words: "1 open request", "2 open requests", "1,204 leads". English only, as the
// rest of the interface; Intl.PluralRules decides which form a number takes.
const rules = new Intl.PluralRules("en");
const numbers = new Intl.NumberFormat("en");

/** `count` and the noun's form for it; `other` defaults to `one` + "s". */
export function plural(count: number, one: string, other = `${one}s`): string {
  return `${numbers.format(count)} ${rules.select(count) === "one" ? one : other}`;
}

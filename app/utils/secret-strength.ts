// What makes a configured secret (SESSION_SECRET, SUPPORT_API_KEY, INBOUND_SECRET) too weak
// to start with. The limits on guessing these secrets are there to make guessing visible,
// not to stop it (decision 037): the secret itself has to be unguessable, so a value that
// a person typed rather than generated is refused at start.

/**
 * The example values .env.example ships with: a copied example must not start as if it
 * were configured (tests/unit/env.test.ts checks this list against the file).
 */
export const PLACEHOLDER_SECRETS = ["replace-with-at-least-32-random-characters"];

export const SECRET_MIN_LENGTH = 32;
/** A generated secret of 32+ characters uses many different ones (hex: about 14 of 16). */
const MIN_DISTINCT_CHARACTERS = 8;

const GENERATE = "generate one, e.g. with `openssl rand -base64 32`";

/** Letters and digits only, lower case: the placeholder is found however it was retyped. */
const squashed = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, "");

/** True when the value is a shorter pattern repeated ("changeme" × 4, "abab…"), in any case. */
function repeatsAPattern(value: string): boolean {
  const text = value.toLowerCase();
  for (let period = 1; period <= text.length / 2; period++) {
    const unit = text.slice(0, period);
    if (unit.repeat(Math.ceil(text.length / period)).startsWith(text)) return true;
  }
  return false;
}

/** True when most neighbouring characters are equal or next to each other ("abcdef…", "aaab…"). */
function mostlyRuns(value: string): boolean {
  let steps = 0;
  for (let index = 1; index < value.length; index++) {
    if (Math.abs(value.charCodeAt(index) - value.charCodeAt(index - 1)) <= 1) steps++;
  }
  return steps >= ((value.length - 1) * 3) / 4;
}

/** Why `value` is not good enough for a secret, or null when it is. Never repeats the value. */
export function secretWeakness(value: string): string | null {
  if (value.length < SECRET_MIN_LENGTH) return `must be at least ${SECRET_MIN_LENGTH} characters`;
  const placeholder = squashed(value);
  if (PLACEHOLDER_SECRETS.some((example) => placeholder.includes(squashed(example)))) {
    return `is still the example value from .env.example: ${GENERATE}`;
  }
  if (/^\d+$/.test(value)) return `is only digits: ${GENERATE}`;
  if (repeatsAPattern(value)) return `is a short pattern repeated: ${GENERATE}`;
  if (new Set(value).size < MIN_DISTINCT_CHARACTERS || mostlyRuns(value)) {
    return `has too little variety (few different characters, or runs such as abcd): ${GENERATE}`;
  }
  return null;
}

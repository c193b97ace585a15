// The browser side of passkeys (docs/api/auth.md#passkeys): asks the server for options, lets
// the browser and the authenticator answer them, and sends the answer back. Used by /login and
// /account/security only; @simplewebauthn/browser is loaded at the first click, in its own
// chunk, so no other page (and never the embed) carries it.

type ErrorBody = { error?: { message?: string; details?: Array<{ path: string; message: string }> } };

/** A step of a passkey flow that failed, in words for the page. */
export class PasskeyFlowError extends Error {}

async function postJson<T>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => null)) as (T & ErrorBody) | null;
  if (!response.ok) {
    const error = answer?.error;
    throw new PasskeyFlowError(
      error?.details?.[0]?.message ?? error?.message ?? `The server answered ${response.status}.`,
    );
  }
  return answer as T;
}

/** The browser's refusals (cancelled, timed out, no authenticator) in words for the page. */
function browserRefusal(error: unknown): never {
  if (error instanceof PasskeyFlowError) throw error;
  const name = error instanceof Error ? error.name : "";
  if (name === "NotAllowedError" || name === "AbortError") {
    throw new PasskeyFlowError("The passkey prompt was closed or timed out. Try again.");
  }
  if (name === "InvalidStateError") throw new PasskeyFlowError("This device already holds a passkey of yours.");
  throw new PasskeyFlowError(error instanceof Error ? error.message : "The browser could not use a passkey.");
}

/** Whether this browser can use passkeys at all. */
export const browserHasPasskeys = () =>
  typeof window !== "undefined" && typeof window.PublicKeyCredential === "function";

/** Creates a passkey named `name` on this device and registers it for the signed-in user. */
export async function addPasskey(name: string, password: string): Promise<void> {
  const { startRegistration } = await import("@simplewebauthn/browser");
  const optionsJSON = await postJson<Parameters<typeof startRegistration>[0]["optionsJSON"]>(
    "/api/auth/passkeys/registration/options",
    password ? { password } : undefined,
  );
  const response = await startRegistration({ optionsJSON }).catch(browserRefusal);
  await postJson("/api/auth/passkeys/registration", { name, response });
}

/** Signs in with a passkey the browser offers (no email typed): where to go next. */
export async function signInWithPasskey(redirectTo: string, timeZone: string): Promise<string> {
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const optionsJSON = await postJson<Parameters<typeof startAuthentication>[0]["optionsJSON"]>(
    "/api/auth/passkeys/login/options",
  );
  const response = await startAuthentication({ optionsJSON }).catch(browserRefusal);
  const body: Record<string, unknown> = { response, redirectTo };
  if (timeZone) body.timeZone = timeZone;
  const answer = await postJson<{ redirectTo: string }>("/api/auth/passkeys/login", body);
  return answer.redirectTo;
}

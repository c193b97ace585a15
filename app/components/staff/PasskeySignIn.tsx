// /login's "Sign in with a passkey" (decision 068): the browser offers the passkeys it holds
// for this site, so no email is typed. It needs JavaScript; without it a note says so and the
// password form above still works.
import { useState } from "react";
import { useHydrated } from "~/components/form-builder/shared";
import { browserHasPasskeys, signInWithPasskey } from "./passkey-client";

export function PasskeySignIn({ redirectTo }: { redirectTo: string }) {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      // The browser's zone, the dashboard's default until the user picks one (as the password form sends it).
      const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone ?? "";
      window.location.assign(await signInWithPasskey(redirectTo, timeZone));
    } catch (thrown) {
      setError(thrown instanceof Error ? thrown.message : "The passkey sign-in failed.");
      setBusy(false);
    }
  };
  return (
    <section aria-label="Passkey">
      <noscript>
        <p className="notice">Signing in with a passkey needs JavaScript. Use your email and password instead.</p>
      </noscript>
      {hydrated && browserHasPasskeys() ? (
        <p>
          <button type="button" className="secondary" onClick={start} disabled={busy}>
            {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
          </button>
        </p>
      ) : null}
      {hydrated && !browserHasPasskeys() ? <p>This browser cannot use passkeys.</p> : null}
      {error ? (
        <p id="passkey-error" className="error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

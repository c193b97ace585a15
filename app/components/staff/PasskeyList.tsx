// /account/security's passkeys (decision 068): the list with a remove button each (a plain
// form: works without JavaScript), and adding one on this device (needs JavaScript: a
// <noscript> note says so, and the rest of the page keeps working without it).
import { Form, useRevalidator } from "@remix-run/react";
import { useState } from "react";
import { useHydrated } from "~/components/form-builder/shared";
import { LocalTime } from "~/components/LocalTime";
import { addPasskey, browserHasPasskeys } from "./passkey-client";

export type PasskeyItem = { id: string; name: string; createdAt: string; lastUsedAt: string | null };

export function PasskeyList({ passkeys, needsPassword }: { passkeys: PasskeyItem[]; needsPassword: boolean }) {
  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p>
        A passkey signs you in without your password or a code, with your fingerprint, face or device PIN. It counts as
        two-factor sign-in.
      </p>
      {passkeys.length === 0 ? (
        <p>No passkeys yet.</p>
      ) : (
        <ul aria-label="Your passkeys">
          {passkeys.map((passkey) => (
            <li key={passkey.id}>
              <strong>{passkey.name}</strong>, added <LocalTime iso={passkey.createdAt} />
              {passkey.lastUsedAt ? (
                <>
                  , last used <LocalTime iso={passkey.lastUsedAt} />
                </>
              ) : (
                ", never used"
              )}
              <Form method="post">
                <input type="hidden" name="intent" value="remove-passkey" />
                <input type="hidden" name="passkeyId" value={passkey.id} />
                {needsPassword ? <PasswordInput id={`remove-${passkey.id}-password`} /> : null}
                <button type="submit" className="secondary" aria-label={`Remove passkey ${passkey.name}`}>
                  Remove
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
      <AddPasskey needsPassword={needsPassword} />
    </section>
  );
}

function AddPasskey({ needsPassword }: { needsPassword: boolean }) {
  const hydrated = useHydrated();
  const revalidator = useRevalidator();
  const [state, setState] = useState<{ busy: boolean; done?: string; error?: string }>({ busy: false });
  const submit = async (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    setState({ busy: true });
    try {
      await addPasskey(String(fields.get("name") ?? ""), String(fields.get("password") ?? ""));
      form.reset();
      setState({ busy: false, done: "Passkey added." });
      revalidator.revalidate();
    } catch (thrown) {
      setState({ busy: false, error: thrown instanceof Error ? thrown.message : "The passkey was not added." });
    }
  };
  return (
    <>
      <noscript>
        <p className="notice">Adding a passkey needs JavaScript. Everything else on this page works without it.</p>
      </noscript>
      {hydrated && !browserHasPasskeys() ? <p>This browser cannot make passkeys.</p> : null}
      {hydrated && browserHasPasskeys() ? (
        <form onSubmit={submit} aria-label="Add a passkey">
          <label htmlFor="passkey-name">Name of the new passkey</label>
          <input id="passkey-name" name="name" maxLength={60} required placeholder="Work laptop" />
          {needsPassword ? <PasswordInput id="passkey-password" /> : null}
          <button type="submit" disabled={state.busy}>
            {state.busy ? "Waiting for your device…" : "Add a passkey"}
          </button>
        </form>
      ) : null}
      {state.done ? (
        <p className="notice" role="status">
          {state.done}
        </p>
      ) : null}
      {state.error ? (
        <p className="error" role="alert">
          {state.error}
        </p>
      ) : null}
    </>
  );
}

function PasswordInput({ id }: { id: string }) {
  return (
    <>
      <label htmlFor={id}>Your password</label>
      <input id={id} name="password" type="password" autoComplete="current-password" required />
    </>
  );
}

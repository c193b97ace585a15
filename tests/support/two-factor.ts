// Two-factor helpers for tests: a code of a secret, and a staff user with two-factor on.
import { Secret, TOTP } from "otpauth";
import { staffSession } from "./http";

/** The TOTP code of `secret` at `offsetSteps` 30-second steps from now. */
export function codeAt(secret: string, offsetSteps = 0): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

/** Creates (or resets) the user, turns two-factor on through the API: their secret and recovery codes. */
export async function userWithTwoFactor(
  baseUrl: string,
  user: { email: string; password: string; role: "owner" | "admin" | "agent" },
  headers: Record<string, string> = {},
) {
  const staff = await staffSession(baseUrl, user, headers);
  const setup = await staff.call("POST", "/api/auth/2fa/setup");
  if (setup.status !== 200) throw new Error(`2fa setup failed: ${setup.status} ${setup.text}`);
  const enabled = await staff.call("POST", "/api/auth/2fa/enable", { code: codeAt(setup.body.secret) });
  if (enabled.status !== 200) throw new Error(`2fa enable failed: ${enabled.status} ${enabled.text}`);
  return { ...staff, secret: setup.body.secret as string, recoveryCodes: enabled.body.recoveryCodes as string[] };
}

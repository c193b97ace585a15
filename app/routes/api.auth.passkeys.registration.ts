// POST /api/auth/passkeys/registration {name, response}: verifies the authenticator's answer
// to the registration options (origin, RP ID, challenge taken once, user verification) and
// keeps the passkey: 201 with it. A refusal is 422 passkey_refused naming what was wrong.
import { requireUserSession } from "~/staff/auth.server";
import { PasskeyRefusedError, registerPasskey } from "~/staff/sign-in/passkeys.server";
import { apiRoute, fail, json, methodNotAllowed, readJsonBody } from "~/utils/http/api.server";
import { clientIp } from "~/utils/http/request.server";
import type { ActionFunctionArgs } from "@remix-run/node";

export const loader = apiRoute(() => methodNotAllowed(["POST"]));

export const action = apiRoute(async ({ request, context }: ActionFunctionArgs) => {
  if (request.method !== "POST") methodNotAllowed(["POST"]);
  const session = await requireUserSession(request);
  const body = await readJsonBody(request);
  try {
    return json({ passkey: await registerPasskey(session.user, body, clientIp(context)) }, 201);
  } catch (error) {
    if (!(error instanceof PasskeyRefusedError)) throw error;
    fail(422, "passkey_refused", "The passkey was not accepted.", {
      details: [{ path: error.path, message: error.message }],
    });
  }
});

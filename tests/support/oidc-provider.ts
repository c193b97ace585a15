// A real OpenID provider for single sign-on tests (decision 062): the `oidc-provider` package on
// a free port over https, with a throw-away self-signed certificate that the test server trusts
// through NODE_EXTRA_CA_CERTS. Its accounts are the test's to set; its development interaction
// pages (any login, one "Continue") sign people in. Two clients: the service's, and another app's.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { exportJWK, generateKeyPair, SignJWT, decodeJwt } from "jose";
import Provider, { type ClientMetadata } from "oidc-provider";
import { generate } from "selfsigned";

export type Account = { email?: string; email_verified?: boolean; name?: string };

export const CLIENT_ID = "lead-capture";
export const OTHER_CLIENT_ID = "other-app";

/** A port nobody listens on now (the app's: its redirect URI must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type TestProvider = Awaited<ReturnType<typeof startOidcProvider>>;

/**
 * Starts the provider for an app at `appUrl`: its issuer, the env that points the app at it,
 * its accounts (id → claims), a switch that makes its token endpoint answer an ID token for the
 * other client, and `get` for the test's own requests (which trust the certificate too).
 */
export async function startOidcProvider(appUrl: string) {
  const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keySize: 2048,
    algorithm: "sha256",
    extensions: [
      { name: "basicConstraints", cA: true },
      { name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] },
    ],
  });
  const certFile = path.join(os.tmpdir(), `oidc-test-ca-${process.pid}-${randomBytes(4).toString("hex")}.pem`);
  fs.writeFileSync(certFile, pems.cert);

  const accounts = new Map<string, Account>();
  const clientSecret = randomBytes(24).toString("hex");
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const redirectUri = `${appUrl}/auth/oidc/callback`;
  const client = (clientId: string): ClientMetadata => ({
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: "client_secret_post",
    grant_types: ["authorization_code"],
    response_types: ["code"],
  });

  const server = https.createServer({ key: pems.private, cert: pems.cert });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [client(CLIENT_ID), client(OTHER_CLIENT_ID)],
    jwks: { keys: [signingKey] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    pkce: { required: () => true },
    // Set, so that the provider does not warn of its defaults in every test's output.
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
  });
  const state = { idTokenAudience: null as string | null };
  // The audience switch: the token endpoint's ID token re-signed, with the provider's own key,
  // for another client (what a confused or malicious token answer would carry).
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (!state.idTokenAudience || ctx.path !== "/token" || ctx.status !== 200 || !body?.id_token) return;
    const payload = decodeJwt(body.id_token);
    body.id_token = await new SignJWT({ ...payload, aud: state.idTokenAudience, azp: state.idTokenAudience })
      .setProtectedHeader({ alg: "RS256", kid: signingKey.kid, typ: "JWT" })
      .sign(privateKey);
  });
  // Its warnings (development interactions are on) are expected here.
  provider.on("server_error", (_ctx, error) => console.error("oidc-provider:", error));
  const handle = provider.callback();
  server.on("request", (request, response) => void handle(request, response));

  return {
    issuer,
    accounts,
    clientSecret,
    state,
    /** What the app needs to use this provider. */
    env: (extra: Record<string, string> = {}) => ({
      NODE_EXTRA_CA_CERTS: certFile,
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: clientSecret,
      OIDC_NAME: "Test Provider",
      ...extra,
    }),
    /** One request to the provider (trusting its certificate), redirects not followed. */
    request: (url: string, init: { method?: string; body?: string; cookie?: string } = {}) =>
      httpsRequest(url, pems.cert, init),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(certFile, { force: true });
    },
  };
}

type ProviderAnswer = { status: number; location: string | null; setCookies: string[]; body: string };

function httpsRequest(
  url: string,
  ca: string,
  init: { method?: string; body?: string; cookie?: string },
): Promise<ProviderAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (init.cookie) headers.Cookie = init.cookie;
    if (init.body !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const request = https.request(url, { method: init.method ?? "GET", ca, headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          location: response.headers.location ?? null,
          setCookies: response.headers["set-cookie"] ?? [],
          body,
        }),
      );
    });
    request.on("error", reject);
    request.end(init.body);
  });
}

/**
 * Signs `accountId` in at the provider as a browser would, from the authorization URL the app
 * sent the browser to: the login page, then the consent page, through the provider's own
 * forms. Returns the address the provider sends the browser back to (the app's callback).
 */
export async function signInAtProvider(provider: TestProvider, authorizationUrl: string, accountId: string) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  let url = authorizationUrl;
  let answer = await provider.request(url);
  for (let step = 0; step < 12; step++) {
    for (const set of answer.setCookies) {
      const [pair] = set.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    if (answer.location) {
      url = new URL(answer.location, url).href;
      if (!url.startsWith(provider.issuer)) return url;
      answer = await provider.request(url, { cookie: cookie() });
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(answer.body)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(answer.body)?.[1];
    if (answer.status !== 200 || !action || !prompt) {
      throw new Error(`the provider answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    }
    const fields: Record<string, string> =
      prompt === "login" ? { prompt, login: accountId, password: "any" } : { prompt };
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    answer = await provider.request(url, {
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      cookie: cookie(),
    });
  }
  throw new Error("the provider never sent the browser back");
}

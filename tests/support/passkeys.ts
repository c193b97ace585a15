// Passkey helpers for tests: a server whose APP_URL is the address the browser uses (WebAuthn
// refuses an IP address as the relying party, so it is http://localhost:<port>), Chromium's
// virtual authenticator (the DevTools protocol's WebAuthn domain), and a software
// authenticator for the API: a real P-256 key that signs real assertions, with attestation
// "none", for driving the server without a browser.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import net from "node:net";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { startServer, type TestServer } from "./server";
import type { CDPSession, Page } from "playwright-core";

/** A port free at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A test server on a port chosen beforehand, so APP_URL (the relying party) is its real address. */
export async function startPasskeyServer(env: Record<string, string> = {}): Promise<TestServer & { origin: string }> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const server = await startServer({ PORT: String(port), APP_URL: origin, ...env });
  return { ...server, origin };
}

/**
 * Gives the page's tab a virtual platform authenticator (CTAP2, internal transport, resident
 * keys, user verification that always succeeds), as a phone or a laptop with a fingerprint reader.
 */
export async function addVirtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString("base64url");

type Options = { challenge: string; rp?: { id?: string }; rpId?: string; user?: { id: string } };

/** A software authenticator holding one ES256 credential. */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  private readonly cosePublicKey: Uint8Array;
  private userHandle: string | null = null;
  counter = 0;

  constructor(private readonly rpId: string) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    this.privateKey = privateKey;
    this.cosePublicKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** Authenticator data: RP ID hash, flags (user present and verified), counter, and the credential when attesting. */
  private authData(attest: boolean): Buffer {
    const flags = 0x01 | 0x04 | (attest ? 0x40 : 0);
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    const parts = [sha256(this.rpId), Buffer.from([flags]), counter];
    if (attest) {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(this.credentialId.length);
      parts.push(Buffer.alloc(16), length, this.credentialId, Buffer.from(this.cosePublicKey));
    }
    return Buffer.concat(parts);
  }

  /** The answer to registration options, as @simplewebauthn/browser's startRegistration gives it. */
  register(options: Options, origin: string) {
    this.userHandle = options.user?.id ?? null;
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin }),
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ["fmt", "none"],
        ["attStmt", new Map<string, string>()],
        ["authData", this.authData(true)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** The answer to login options, signed with the credential's key; the counter goes up first. */
  assert(options: Options, origin: string, { counter = this.counter + 1 }: { counter?: number } = {}) {
    this.counter = counter;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin }));
    const authenticatorData = this.authData(false);
    const signature = sign("sha256", Buffer.concat([authenticatorData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}

// Single sign-on's variables (decision 062): an issuer that is not https://, or half a client,
// stops the start with a line naming the variable.
import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";

const base = { SESSION_SECRET: "q8Z2vN4kT7wR1xY9mB3cL6pF0sH5jD2g" };
const client = { OIDC_CLIENT_ID: "lead-capture", OIDC_CLIENT_SECRET: "a secret from the provider" };

describe("single sign-on configuration", () => {
  it("is off when unset, and on with an https issuer, a client id and its secret", () => {
    expect(parseEnv(base).OIDC).toBeNull();
    const env = parseEnv({
      ...base,
      ...client,
      OIDC_ISSUER: "https://accounts.google.com",
      OIDC_NAME: "Google",
      OIDC_ALLOWED_DOMAINS: " Example.com, @team.example.org ,",
    });
    expect(env.OIDC).toEqual({
      issuer: "https://accounts.google.com",
      clientId: "lead-capture",
      clientSecret: "a secret from the provider",
      name: "Google",
      allowedDomains: ["example.com", "team.example.org"],
    });
    expect(parseEnv({ ...base, ...client, OIDC_ISSUER: "https://idp.example" }).OIDC?.name).toBe("single sign-on");
  });

  it("refuses an issuer that is not https://", () => {
    for (const issuer of ["http://idp.example", "idp.example", "ftp://idp.example", "https://idp.example/?a=1"]) {
      expect(() => parseEnv({ ...base, ...client, OIDC_ISSUER: issuer })).toThrowError(
        /OIDC_ISSUER: must be the provider's https:\/\/ issuer URL/,
      );
    }
  });

  it("refuses half a client, naming what is missing", () => {
    expect(() => parseEnv({ ...base, OIDC_ISSUER: "https://idp.example" })).toThrowError(
      /OIDC_CLIENT_ID: is required with OIDC_ISSUER.*OIDC_CLIENT_SECRET: is required with OIDC_ISSUER/,
    );
    expect(() => parseEnv({ ...base, ...client })).toThrowError(/OIDC_ISSUER: is required/);
  });

  it("refuses allowed domains that are not domains, and a label of several lines", () => {
    const env = { ...base, ...client, OIDC_ISSUER: "https://idp.example" };
    expect(() => parseEnv({ ...env, OIDC_ALLOWED_DOMAINS: "example.com, not a domain" })).toThrowError(
      /OIDC_ALLOWED_DOMAINS: must be a comma list of email domains/,
    );
    expect(() => parseEnv({ ...env, OIDC_NAME: "Google\nEvil" })).toThrowError(/OIDC_NAME: must be one line/);
  });
});

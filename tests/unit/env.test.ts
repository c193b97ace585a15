import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_SECRETS, parseEnv } from "~/utils/env.server";

// Generated-looking values of 32+ characters: what a configured secret looks like.
const SECRETS = {
  session: "q8Z2vN4kT7wR1xY9mB3cL6pF0sH5jD2g",
  support: "Xk7Pq2Lm9Rt4Vw8Yz3Bn6Cd1Fg5Hj0Ks",
  inbound: "f3a9c2e7b1d84605af2e9c7b3d1a8e64",
};
const base = { SESSION_SECRET: SECRETS.session };

describe("environment validation", () => {
  it("names every missing or bad variable in one message", () => {
    const parse = () => parseEnv({ PORT: "eighty", SUPPORT_TICKET_PREFIX: "S-R" });
    expect(parse).toThrowError(/SESSION_SECRET: is required/);
    expect(parse).toThrowError(/PORT: must be a whole number/);
    expect(parse).toThrowError(/SUPPORT_TICKET_PREFIX: must be 1 to 10 letters/);
  });

  it("treats empty values as unset and fills the documented defaults", () => {
    const env = parseEnv({ ...base, SMTP_URL: "", SUPPORT_API_KEY: "" });
    expect(env.SMTP_URL).toBeUndefined();
    expect(env.SUPPORT_API_KEY).toBeUndefined();
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_PROVIDER).toBe("sqlite");
    expect(env.SUBMIT_RATE_LIMIT_PER_MINUTE).toBe(30);
    expect(env.SUPPORT_TICKET_PREFIX).toBe("SR");
    expect(env.SQLITE_SYNCHRONOUS).toBe("full");
  });

  it("lets SQLite's durability be lowered to NORMAL on purpose, and refuses anything else", () => {
    expect(parseEnv({ ...base, SQLITE_SYNCHRONOUS: " Normal " }).SQLITE_SYNCHRONOUS).toBe("normal");
    expect(() => parseEnv({ ...base, SQLITE_SYNCHRONOUS: "off" })).toThrowError(
      /SQLITE_SYNCHRONOUS: must be full or normal/,
    );
  });

  it("takes INBOUND_AUTHSERV_ID as a host name in lower case, unset when empty", () => {
    expect(parseEnv({ ...base, INBOUND_AUTHSERV_ID: " MX.Google.com " }).INBOUND_AUTHSERV_ID).toBe("mx.google.com");
    expect(parseEnv({ ...base, INBOUND_AUTHSERV_ID: "" }).INBOUND_AUTHSERV_ID).toBeUndefined();
    expect(() => parseEnv({ ...base, INBOUND_AUTHSERV_ID: "mx.example.net; dmarc=pass" })).toThrowError(
      /INBOUND_AUTHSERV_ID: must be a host name/,
    );
  });

  it("keeps rate limits in the database on PostgreSQL, where several instances may run", () => {
    const env = parseEnv({ ...base, DATABASE_URL: "postgresql://u@h/db" });
    expect(env.DATABASE_PROVIDER).toBe("postgresql");
    expect(env.RATE_LIMIT_STORE).toBe("database");
    expect(parseEnv(base).RATE_LIMIT_STORE).toBe("memory");
  });

  it("marks the session cookie Secure whenever the service's address is https", () => {
    expect(parseEnv({ ...base, NODE_ENV: "production", ALLOW_INSECURE_HTTP: "true" }).COOKIE_SECURE).toBe(false);
    expect(parseEnv({ ...base, NODE_ENV: "production", APP_URL: "https://leads.example.com" }).COOKIE_SECURE).toBe(
      true,
    );
    expect(parseEnv({ ...base, NODE_ENV: "development", APP_URL: "https://leads.example.com" }).COOKIE_SECURE).toBe(
      true,
    );
    expect(parseEnv({ ...base, NODE_ENV: "development" }).COOKIE_SECURE).toBe(false);
  });

  it("refuses a production start without an https address unless plain http is allowed on purpose", () => {
    expect(() => parseEnv({ ...base, NODE_ENV: "production" })).toThrowError(
      /APP_URL: must be the service's https:\/\/ address/,
    );
    expect(() => parseEnv({ ...base, NODE_ENV: "production", APP_URL: "http://leads.example.com" })).toThrowError(
      /APP_URL/,
    );
    expect(parseEnv({ ...base, NODE_ENV: "production", APP_URL: "https://leads.example.com" }).APP_URL).toBe(
      "https://leads.example.com",
    );
    expect(parseEnv({ ...base, NODE_ENV: "production", ALLOW_INSECURE_HTTP: "true" }).APP_URL).toBe(
      "http://localhost:3000",
    );
  });

  it("refuses short secrets and the example values, naming each variable", () => {
    const parse = () =>
      parseEnv({ SESSION_SECRET: PLACEHOLDER_SECRETS[0], SUPPORT_API_KEY: "a", INBOUND_SECRET: "1".repeat(31) });
    expect(parse).toThrowError(/SESSION_SECRET: is still the example value/);
    expect(parse).toThrowError(/SUPPORT_API_KEY: must be at least 32 characters/);
    expect(parse).toThrowError(/INBOUND_SECRET: must be at least 32 characters/);
    expect(
      parseEnv({ ...base, SUPPORT_API_KEY: SECRETS.support, INBOUND_SECRET: SECRETS.inbound }).SUPPORT_API_KEY,
    ).toBe(SECRETS.support);
  });

  it.each([
    ["one character repeated", "a".repeat(36), /is a short pattern repeated/],
    ["a word repeated", "changeme".repeat(4), /is a short pattern repeated/],
    ["a word repeated in mixed case", "ChangeMe".repeat(2) + "changeme".repeat(2), /is a short pattern repeated/],
    ["a pair repeated with a partial end", "ab".repeat(16) + "a", /is a short pattern repeated/],
    ["only digits", "12345678901234567890123456789012", /is only digits/],
    ["random digits", "80613592740158362941730586214973", /is only digits/],
    ["few different characters", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaabcd", /has too little variety/],
    ["a run of the alphabet", "abcdefghijklmnopqrstuvwxyzabcdefg", /has too little variety/],
    ["the placeholder upper-cased", PLACEHOLDER_SECRETS[0].toUpperCase(), /is still the example value/],
    ["the placeholder with a suffix", `${PLACEHOLDER_SECRETS[0]}-prod`, /is still the example value/],
    ["the placeholder with spaces", ` ${PLACEHOLDER_SECRETS[0].replaceAll("-", " ")} `, /is still the example value/],
    [
      "the placeholder behind a prefix",
      `my_${PLACEHOLDER_SECRETS[0].replaceAll("-", "_")}`,
      /is still the example value/,
    ],
  ])("refuses a secret that is %s, for every secret variable", (_, value, message) => {
    for (const name of ["SESSION_SECRET", "SUPPORT_API_KEY", "INBOUND_SECRET", "METRICS_TOKEN"]) {
      const source = { ...base, [name]: value };
      expect(() => parseEnv(source)).toThrowError(new RegExp(`${name}: ${message.source}`));
    }
  });

  it("refuses one value used for two secrets, naming the second", () => {
    expect(() => parseEnv({ ...base, SUPPORT_API_KEY: SECRETS.session })).toThrowError(
      /SUPPORT_API_KEY: must differ from SESSION_SECRET/,
    );
    expect(() => parseEnv({ ...base, SUPPORT_API_KEY: SECRETS.support, INBOUND_SECRET: SECRETS.support })).toThrowError(
      /INBOUND_SECRET: must differ from SUPPORT_API_KEY/,
    );
    expect(() => parseEnv({ ...base, INBOUND_SECRET: SECRETS.session })).toThrowError(
      /INBOUND_SECRET: must differ from SESSION_SECRET/,
    );
    // The metrics token is handed to a monitoring system: it must open nothing else.
    expect(() => parseEnv({ ...base, SUPPORT_API_KEY: SECRETS.support, METRICS_TOKEN: SECRETS.support })).toThrowError(
      /METRICS_TOKEN: must differ from SUPPORT_API_KEY/,
    );
  });

  it("starts with generated secrets of every common form", () => {
    const generated = [
      "3f9a1c7e5b2d4086a1f3c9e7b5d20486", // openssl rand -hex 16
      "Zm9yIHRoZSBzZXJ2aWNlIG9ubHkgMTIzNDU2Nzg5MA==", // openssl rand -base64 32
      "test-session-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9", // the test suite's own
    ];
    for (const value of generated) expect(parseEnv({ SESSION_SECRET: value }).SESSION_SECRET).toBe(value);
  });

  it("takes SMTP_URL as a URL, not a secret: a local relay without a password starts", () => {
    for (const url of [
      "smtp://127.0.0.1:25",
      "smtp://localhost",
      "smtps://user:p%40ss@mail.example.com:465",
      "smtp://apikey:short@smtp.example.com:587?ignoreTLS=true",
    ]) {
      expect(parseEnv({ ...base, SMTP_URL: url }).SMTP_URL).toBe(url);
    }
  });

  it("refuses an SMTP_URL that is no smtp:// or smtps:// URL, without repeating it", () => {
    for (const url of ["mail.example.com:25", "http://mail.example.com", "smtp://", "smtp://user:hunter2@"]) {
      const parse = () => parseEnv({ ...base, SMTP_URL: url });
      expect(parse, url).toThrowError(/SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/);
      expect(parse, url).not.toThrowError(/hunter2/);
    }
  });

  it("reports a bad configuration in one line naming each variable", () => {
    let message = "";
    try {
      parseEnv({ SESSION_SECRET: "short", SMTP_URL: "ftp://x" });
    } catch (error) {
      message = (error as Error).message;
      expect((error as Error).name).toBe("ConfigError");
    }
    expect(message).not.toContain("\n");
    expect(message).toMatch(/SESSION_SECRET: must be at least 32 characters; SMTP_URL: must be/);
  });

  it("knows every secret value .env.example ships with as a placeholder", () => {
    const example = fs.readFileSync(path.resolve(import.meta.dirname, "../../.env.example"), "utf8");
    const shipped = [...example.matchAll(/^(SESSION_SECRET|SUPPORT_API_KEY|INBOUND_SECRET)=(.+)$/gm)].map((m) =>
      m[2].trim(),
    );
    expect(shipped.length).toBeGreaterThan(0);
    for (const value of shipped) expect(PLACEHOLDER_SECRETS).toContain(value);
  });

  it("takes fractional session timeouts and refuses zero or words", () => {
    expect(parseEnv({ ...base, SESSION_IDLE_HOURS: "0.5", SESSION_MAX_DAYS: "1.5" })).toMatchObject({
      SESSION_IDLE_HOURS: 0.5,
      SESSION_MAX_DAYS: 1.5,
    });
    expect(parseEnv(base)).toMatchObject({ SESSION_IDLE_HOURS: 12, SESSION_MAX_DAYS: 30 });
    expect(() => parseEnv({ ...base, SESSION_IDLE_HOURS: "0" })).toThrowError(
      /SESSION_IDLE_HOURS: must be a number above 0/,
    );
    expect(() => parseEnv({ ...base, SESSION_MAX_DAYS: "soon" })).toThrowError(/SESSION_MAX_DAYS/);
  });
});

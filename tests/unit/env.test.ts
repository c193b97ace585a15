import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_SECRETS, parseEnv } from "~/utils/env.server";

const base = { SESSION_SECRET: "x".repeat(32) };

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
    expect(parseEnv({ ...base, SUPPORT_API_KEY: "k".repeat(32), INBOUND_SECRET: "i".repeat(40) }).SUPPORT_API_KEY).toBe(
      "k".repeat(32),
    );
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

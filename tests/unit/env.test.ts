import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";

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
  });

  it("keeps rate limits in the database on PostgreSQL, where several instances may run", () => {
    const env = parseEnv({ ...base, DATABASE_URL: "postgresql://u@h/db" });
    expect(env.DATABASE_PROVIDER).toBe("postgresql");
    expect(env.RATE_LIMIT_STORE).toBe("database");
    expect(parseEnv(base).RATE_LIMIT_STORE).toBe("memory");
  });

  it("marks the session cookie Secure in production unless serving plain http on localhost", () => {
    expect(parseEnv({ ...base, NODE_ENV: "production" }).COOKIE_SECURE).toBe(false);
    expect(parseEnv({ ...base, NODE_ENV: "production", APP_URL: "https://leads.example.com" }).COOKIE_SECURE).toBe(true);
    expect(parseEnv({ ...base, NODE_ENV: "development", APP_URL: "https://leads.example.com" }).COOKIE_SECURE).toBe(false);
  });
});

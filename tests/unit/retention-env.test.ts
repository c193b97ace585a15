// The retention periods (decision 054): documented defaults, 0 or off to keep forever, and a
// start refused, naming the variable, on anything else.
import { describe, expect, it } from "vitest";
import { parseEnv } from "~/utils/env.server";

const base = { SESSION_SECRET: "q8Z2vN4kT7wR1xY9mB3cL6pF0sH5jD2g" };

describe("retention periods", () => {
  it("keep webhooks and email bodies 30 days, audit entries a year, attachments forever by default", () => {
    const env = parseEnv(base);
    expect([env.RETENTION_WEBHOOK_DAYS, env.RETENTION_EMAIL_DAYS, env.RETENTION_AUDIT_DAYS]).toEqual([30, 30, 365]);
    expect(env.RETENTION_ATTACHMENT_DAYS).toBeNull();
  });

  it("take a number of days, and 0 or off (any case) as keep forever", () => {
    const env = parseEnv({
      ...base,
      RETENTION_WEBHOOK_DAYS: " 7 ",
      RETENTION_EMAIL_DAYS: "OFF",
      RETENTION_AUDIT_DAYS: "0",
      RETENTION_ATTACHMENT_DAYS: "180",
    });
    expect([env.RETENTION_WEBHOOK_DAYS, env.RETENTION_EMAIL_DAYS, env.RETENTION_AUDIT_DAYS]).toEqual([7, null, null]);
    expect(env.RETENTION_ATTACHMENT_DAYS).toBe(180);
  });

  it.each(["-1", "1.5", "30d", "never", "99999"])("refuse %j, naming the variable", (value) => {
    expect(() => parseEnv({ ...base, RETENTION_AUDIT_DAYS: value })).toThrowError(
      /RETENTION_AUDIT_DAYS: must be a whole number of days \(1 to 36500\), or 0 or off to keep forever/,
    );
  });
});

// The CAPTCHA widgets' scripts and the hosted form's CSP are written in two places (the CSP
// lives in utils, which imports no area): every widget's script must be allowed there.
import { describe, expect, it } from "vitest";
import { CAPTCHA_PROVIDERS, CAPTCHA_WIDGETS } from "~/forms/captcha-widgets";
import { CaptchaSettingsSchema, FormSettingsSchema, publicSettings } from "~/forms/schema/form-schema";
import { CAPTCHA_ORIGINS, documentSecurityHeaders } from "~/utils/http/security-headers.server";

const allows = (origins: string[], url: string) =>
  origins.some((origin) => {
    const host = new URL(url).host;
    const pattern = new URL(origin.replace("*.", "wildcard.")).host;
    return pattern.startsWith("wildcard.") ? host.endsWith(pattern.slice("wildcard".length)) : host === pattern;
  });

describe("CAPTCHA widgets", () => {
  it.each(CAPTCHA_PROVIDERS)("%s: its script is allowed on hosted forms, not on the dashboard", (provider) => {
    const script = CAPTCHA_WIDGETS[provider].script;
    expect(allows(CAPTCHA_ORIGINS, script)).toBe(true);
    const hosted = documentSecurityHeaders("/f/abc", "n")["Content-Security-Policy"];
    const scriptSrc = hosted.split("; ").find((directive) => directive.startsWith("script-src"))!;
    expect(scriptSrc).toContain(new URL(script).origin);
    const dashboard = documentSecurityHeaders("/forms", "n")["Content-Security-Policy"];
    expect(dashboard).not.toContain(new URL(script).origin);
  });

  it("each provider writes its token to a field of its own, which no form field key can take", () => {
    const fields = CAPTCHA_PROVIDERS.map((provider) => CAPTCHA_WIDGETS[provider].field);
    expect(new Set(fields).size).toBe(fields.length);
    for (const field of fields) expect(field).not.toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
  });

  it("shows a form's settings without the secret", () => {
    const settings = FormSettingsSchema.parse({
      captcha: { provider: "hcaptcha", siteKey: "site", secretKey: "secret" },
    });
    expect(publicSettings(settings).captcha).toEqual({ provider: "hcaptcha", siteKey: "site" });
    expect(JSON.stringify(publicSettings(settings))).not.toContain('secret"');
    expect(CaptchaSettingsSchema.safeParse({ provider: "hcaptcha", siteKey: "site" }).success).toBe(false);
  });
});

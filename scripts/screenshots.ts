// `npm run screenshots`: the README's pictures of the leads page, on a wide screen and on a
// phone, taken in Chromium from the built app on a fresh SQLite database seeded as the
// end-to-end tests seed it (tests/e2e/every-page.helpers.ts).
//
//   CHROMIUM_PATH   the browser (default /usr/bin/chromium)
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "docs", "screenshots");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "screenshots-"));

// The seeding below runs in this process against the same database as the server.
const env = {
  DATABASE_URL: `file:${path.join(tmp, "screenshots.db")}`,
  SESSION_SECRET: randomBytes(24).toString("hex"),
  SUPPORT_API_KEY: randomBytes(24).toString("hex"),
  INBOUND_SECRET: randomBytes(24).toString("hex"),
  ALLOW_INSECURE_HTTP: "true",
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOW_PRIVATE: "true",
  ENV_FILE: "",
  TIME_ZONE: "UTC",
};
Object.assign(process.env, env);
execFileSync(process.execPath, ["--import", "tsx", path.join(root, "scripts", "prisma.ts"), "migrate", "deploy"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});

const { startServer } = await import("../tests/support/server");
const { launchBrowser, logInAt } = await import("../tests/support/browser");
const { seedEveryPage } = await import("../tests/e2e/every-page.helpers");
const { createLeads, day } = await import("../tests/integration/leads.helpers");
const { db } = await import("../app/utils/db.server");

const server = await startServer(env);
const browser = await launchBrowser();
try {
  await seedEveryPage(server.url);
  const form = await db.form.findFirstOrThrow({ select: { id: true } });
  const people = [
    ["Katherine Johnson", "katherine@orbit.example", "google", "brand"],
    ["Dorothy Vaughan", "dorothy@fortran.example", "newsletter", "spring-launch-2026"],
    ["Hedy Lamarr", "hedy@frequency.example", "linkedin", "webinar"],
    ["Margaret Hamilton", "margaret@apollo.example", null, null],
    ["Radia Perlman", "radia@spanning.example", "google", "brand"],
    ["Barbara Liskov", "barbara@clu.example", "newsletter", "spring-launch-2026"],
  ] as const;
  await createLeads(
    form.id,
    people.map(([name, email, utmSource, utmCampaign], i) => ({
      data: { name, email, company: "", message: "Interested in a demo" },
      utmSource,
      utmCampaign,
      createdAt: day(`2026-03-${String(4 + i).padStart(2, "0")}T${10 + i}:20:00`),
    })),
  );
  fs.mkdirSync(out, { recursive: true });
  // The phone's picture stops after the first few leads (the whole page is five screens long).
  for (const [name, viewport, clip] of [
    ["leads-wide.png", { width: 1280, height: 720 }, undefined],
    ["leads-phone.png", { width: 390, height: 844 }, { x: 0, y: 0, width: 390, height: 1900 }],
  ] as const) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await logInAt(page, server.url, "/leads");
    await page.getByRole("table", { name: "Leads" }).waitFor();
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: path.join(out, name), fullPage: true, clip });
    await context.close();
    console.log(`wrote docs/screenshots/${name}`);
  }
} finally {
  await browser.close();
  await server.stop();
  await db.$disconnect();
  fs.rmSync(tmp, { recursive: true, force: true });
}

// `npm run screenshots`: every page at 390 px (a phone) and 1,280 px, into screenshots/
// (not committed: look through them after a change), and the README's pictures into
// docs/screenshots/, taken in Chromium from the built app on a fresh SQLite database seeded
// as the end-to-end tests seed it (tests/e2e/every-page.helpers.ts).
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
const every = path.join(root, "screenshots");
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
const { createLeads, day } = await import("../tests/support/leads");
const { db } = await import("../app/storage/db.server");

const server = await startServer(env);
const browser = await launchBrowser();
try {
  const pages = await seedEveryPage(server.url);
  const form = await db.form.findFirstOrThrow({ select: { id: true } });
  await addSampleLeads(form.id);
  fs.mkdirSync(out, { recursive: true });
  fs.rmSync(every, { recursive: true, force: true });
  fs.mkdirSync(every, { recursive: true });
  const ticket = pages.dashboard.find((page) => /^\/support\/./.test(page))!;
  // The README's pictures: the dashboard's leads, the builder, a hosted form, a support thread.
  const readme: Array<[string, string, number]> = [
    ["leads-wide.png", "/leads", 1280],
    ["leads-phone.png", "/leads", 390],
    ["builder-wide.png", `/forms/${form.id}/fields`, 1280],
    ["hosted-form-phone.png", `/f/${form.id}`, 390],
    ["support-thread-wide.png", ticket, 1280],
  ];
  for (const width of [390, 1280]) {
    const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 800 } });
    const page = await context.newPage();
    await logInAt(page, server.url, "/leads");
    for (const pathname of [...pages.dashboard, ...pages.visitor]) {
      await page.goto(`${server.url}${pathname}`);
      await page.waitForLoadState("networkidle");
      const name = `${pathname.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "") || "home"}-${width}.png`;
      await page.screenshot({ path: path.join(every, name), fullPage: true });
      for (const [file] of readme.filter(([, shown, at]) => shown === pathname && at === width)) {
        // A phone's picture stops after the first screens (some pages are five screens long).
        const clip = width === 390 ? { x: 0, y: 0, width, height: 1900 } : undefined;
        await page.screenshot({ path: path.join(out, file), fullPage: true, clip });
        console.log(`wrote docs/screenshots/${file}`);
      }
    }
    await context.close();
  }
  console.log(`wrote ${fs.readdirSync(every).length} pictures of every page into screenshots/`);
} finally {
  await browser.close();
  await server.stop();
  await db.$disconnect();
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function addSampleLeads(formId: string) {
  const people = [
    ["Katherine Johnson", "katherine@orbit.example", "google", "brand"],
    ["Dorothy Vaughan", "dorothy@fortran.example", "newsletter", "spring-launch-2026"],
    ["Hedy Lamarr", "hedy@frequency.example", "linkedin", "webinar"],
    ["Margaret Hamilton", "margaret@apollo.example", null, null],
    ["Radia Perlman", "radia@spanning.example", "google", "brand"],
    ["Barbara Liskov", "barbara@clu.example", "newsletter", "spring-launch-2026"],
  ] as const;
  await createLeads(
    formId,
    people.map(([name, email, utmSource, utmCampaign], i) => ({
      data: { name, email, company: "", message: "Interested in a demo" },
      utmSource,
      utmCampaign,
      createdAt: day(`2026-03-${String(4 + i).padStart(2, "0")}T${10 + i}:20:00`),
    })),
  );
}

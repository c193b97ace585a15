// A team in a real browser, with JavaScript on and off: the owner invites an agent from
// /settings/staff, the agent accepts the emailed link and works a support request with a
// saved reply and an internal note.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, loggedInPage, submitLogIn, waitForHydration } from "../support/browser";
import { STAFF, apiClient, loginAsStaff } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { Browser } from "playwright-core";

let smtp: TestSmtp;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtp();
  [server, browser] = await Promise.all([
    startServer({ SMTP_URL: smtp.url, OUTBOX_POLL_MS: "100", SUPPORT_ACKS_PER_RECIPIENT_PER_DAY: "0" }),
    launchBrowser(),
  ]);
  await createOrResetUser({ ...STAFF, role: "owner" });
  const owner = apiClient(server.url, await loginAsStaff(server.url));
  await owner("POST", "/api/saved-replies", {
    name: "Looking into it",
    body: "Hello {{customer.name}}, {{agent.name}} here: we are looking into {{ticket.reference}}.",
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.close();
});

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("a new agent $label", ({ javaScriptEnabled }) => {
  it("is invited, joins, and answers a request with a saved reply and a note", async () => {
    const tag = javaScriptEnabled ? "js" : "nojs";
    const agentEmail = `agent-${tag}@team.example`;

    // 1. The owner invites the agent.
    const ownerPage = await loggedInPage(browser, server.url, "/settings/staff", { javaScriptEnabled });
    await ownerPage.getByLabel("Email", { exact: true }).fill(agentEmail);
    await ownerPage.getByLabel("Role", { exact: true }).selectOption("agent");
    await ownerPage.getByRole("button", { name: "Send the invitation" }).click();
    await ownerPage.getByText(`Invitation sent to ${agentEmail}`).waitFor();
    await ownerPage.context().close();

    // 2. The agent follows the emailed link, chooses a name and password, and is logged in.
    const find = () =>
      smtp.received.filter((mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === agentEmail);
    await expect.poll(() => find().length, { timeout: 15_000 }).toBe(1);
    const link = find()[0].text!.match(/https?:\/\/\S+\/invite\/\S+/)![0];
    const context = await browser.newContext({ javaScriptEnabled });
    const page = await context.newPage();
    await page.goto(`${server.url}${new URL(link).pathname}`);
    if (javaScriptEnabled) await waitForHydration(page);
    await page.getByLabel("Name").fill(`Agent ${tag}`);
    await page.getByLabel(/Password/).fill("a long enough password");
    await page.getByRole("button", { name: "Join" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/invite"));
    // An agent sees no webhooks in the menu.
    expect(await page.getByRole("link", { name: "Webhooks" }).count()).toBe(0);

    // 3. A customer's request; the agent opens it, notes, and answers with the saved reply.
    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: `customer-${tag}@example.com`,
      name: "Casey",
      subject: "Where is my invoice?",
      message: "I cannot find it.",
    });
    const reference: string = created.body.reference;
    await page.goto(`${server.url}/support/${reference}`);
    if (javaScriptEnabled) await waitForHydration(page);
    await page.getByLabel("New note").fill("Invoice was sent to an old address.");
    await page.getByRole("button", { name: "Add note" }).click();
    await page.getByTestId("note").first().waitFor();
    expect(await page.getByTestId("note").first().textContent()).toContain("Invoice was sent to an old address.");

    await page.getByLabel("Saved reply").selectOption({ label: "Looking into it" });
    if (!javaScriptEnabled) await page.getByRole("button", { name: "Use" }).click();
    const box = page.getByLabel(`Message to customer-${tag}@example.com`);
    await expect.poll(() => box.inputValue()).toBe(`Hello Casey, Agent ${tag} here: we are looking into ${reference}.`);
    await page.getByRole("button", { name: "Send reply" }).click();
    await expect.poll(() => page.getByTestId("message").count()).toBe(2);
    expect(await page.getByTestId("message").nth(1).textContent()).toContain(`Agent ${tag} here`);

    // The customer got the reply, and nothing of the note.
    const customerMail = () =>
      smtp.received.filter(
        (mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === `customer-${tag}@example.com`,
      );
    await expect.poll(() => customerMail().length, { timeout: 15_000 }).toBe(2);
    expect(customerMail().some((mail) => mail.text?.includes("old address"))).toBe(false);
    await context.close();
    // Two mail round trips and a dozen pages: past the default 30 s on a loaded CI machine.
  }, 90_000);
});

describe.each([
  { javaScriptEnabled: true, tag: "js" },
  { javaScriptEnabled: false, tag: "nojs" },
])("the owner's staff page (JavaScript: $javaScriptEnabled)", ({ javaScriptEnabled, tag }) => {
  it("sends an invitation again, revokes it, and disables someone only once asked", async () => {
    const owner = apiClient(server.url, await loginAsStaff(server.url));
    const invited = `pending-${tag}@team.example`;
    const ada = `ada-${tag}@team.example`;
    expect((await owner("POST", "/api/staff", { email: invited, role: "agent" })).status).toBe(201);
    await createOrResetUser({ email: ada, password: "ada's long password", role: "agent" });

    const page = await loggedInPage(browser, server.url, "/settings/staff", { javaScriptEnabled });
    await page.getByRole("button", { name: `Resend the invitation to ${invited}` }).click();
    await page.getByText(`A new invitation went to ${invited}`).waitFor();

    await page.locator("tr", { hasText: invited }).getByText("Revoke…").click();
    await page.getByRole("button", { name: `Revoke the invitation of ${invited}` }).click();
    await page.getByText(`The invitation of ${invited} is revoked.`).waitFor();
    // With JavaScript the message can show a moment before the revalidated list drops the row.
    await expect.poll(() => page.locator("tr", { hasText: invited }).count()).toBe(0);

    // The real button is out of sight until the question is opened.
    const disable = page.getByRole("button", { name: `Disable ${ada}` });
    expect(await disable.isVisible()).toBe(false);
    await page.locator("tr", { hasText: ada }).getByText("Disable…").click();
    await disable.click();
    await page.getByText(`${ada} is disabled.`).waitFor();
    // As with revoking: the message can show a moment before the revalidated row.
    await expect.poll(() => page.getByRole("button", { name: `Enable ${ada}` }).count()).toBe(1);
    await page.context().close();
  });
});

describe("a forgotten password, without JavaScript", () => {
  it("is reset from the login page through the emailed link", async () => {
    await createOrResetUser({ email: "forgot@team.example", password: "the old password 1", role: "agent" });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill("forgot@team.example");
    await page.getByRole("button", { name: "Send me a link" }).click();
    await page.getByText("If forgot@team.example has a staff account").waitFor();
    const find = () =>
      smtp.received.filter((mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === "forgot@team.example");
    await expect.poll(() => find().length, { timeout: 15_000 }).toBe(1);
    const link = find()[0].text!.match(/https?:\/\/\S+\/reset-password\/\S+/)![0];
    await page.goto(`${server.url}${new URL(link).pathname}`);
    await page.getByLabel(/New password/).fill("the brand new password");
    await page.getByRole("button", { name: "Set the password" }).click();
    await page.getByText("Your password was changed.").waitFor();
    await submitLogIn(page, { email: "forgot@team.example", password: "the brand new password" });
    await page.waitForURL((url) => !url.pathname.startsWith("/login"));
    await context.close();
  });
});

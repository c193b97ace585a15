// The whole support loop: a customer opens a request, staff answers in the browser,
// the answer arrives by email, the customer's email reply comes back through the
// inbound webhook and shows in the thread.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrResetUser } from "~/staff/user.server";
import { launchBrowser, loggedInPage } from "../support/browser";
import { STAFF, apiClient } from "../support/http";
import { startServer, type TestServer } from "../support/server";
import { startSmtp, type TestSmtp } from "../support/smtp";
import type { ParsedMail } from "mailparser";
import type { Browser } from "playwright-core";

let smtp: TestSmtp;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtp();
  [server, browser] = await Promise.all([startServer({ SMTP_URL: smtp.url }), launchBrowser()]);
  await createOrResetUser(STAFF);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await smtp?.close();
});

async function mailsTo(address: string, count: number): Promise<ParsedMail[]> {
  const find = () => smtp.received.filter((mail) => !Array.isArray(mail.to) && mail.to?.value[0]?.address === address);
  await expect.poll(() => find().length, { timeout: 15_000, interval: 50 }).toBe(count);
  return find();
}

describe.each([
  { javaScriptEnabled: true, label: "with JavaScript" },
  { javaScriptEnabled: false, label: "without JavaScript" },
])("the support loop $label", ({ javaScriptEnabled }) => {
  it("carries a staff reply to the customer by email and the customer's email reply back into the thread", async () => {
    // 1. The customer opens a request over the public API.
    const customer = `customer-${javaScriptEnabled ? "js" : "nojs"}@example.com`;
    const created = await apiClient(server.url)("POST", "/api/support-requests", {
      email: customer,
      name: "Casey Customer",
      subject: "My export is empty",
      message: "The CSV export has no rows.",
    });
    expect(created.status).toBe(201);
    const reference: string = created.body.reference;
    const [ack] = await mailsTo(customer, 1);
    expect(ack.subject).toContain(`[#${reference}]`);

    // 2. Staff finds it in the list (search form) and opens the thread.
    const page = await loggedInPage(browser, server.url, "/support", { javaScriptEnabled });
    await page.getByLabel("Search").fill(reference.toLowerCase());
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === reference.toLowerCase());
    await page.getByRole("link", { name: reference }).click();
    await page.getByRole("heading", { name: `${reference}: My export is empty` }).waitFor();
    expect(await page.getByTestId("message").first().textContent()).toContain("The CSV export has no rows.");

    // 3. Staff replies in the browser. A blank reply is refused by the shared schema: in the
    // browser before anything is sent with JavaScript, by the server without.
    const posts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    await page.getByLabel(`Message to ${customer}`).fill("   ");
    await page.getByRole("button", { name: "Send reply" }).click();
    await expect.poll(() => page.getByText("Write a message.").count()).toBe(1);
    expect(await page.getByLabel(`Message to ${customer}`).getAttribute("aria-invalid")).toBe("true");
    expect(posts).toHaveLength(javaScriptEnabled ? 0 : 1);
    expect(await page.getByTestId("message").count()).toBe(1);

    const replyText = `Please check the date filter (${javaScriptEnabled ? "js" : "no js"}).`;
    await page.getByLabel(`Message to ${customer}`).fill(replyText);
    await page.getByRole("button", { name: "Send reply" }).click();
    await expect.poll(() => page.getByTestId("message").count()).toBe(2);
    const staffMessage = page.getByTestId("message").nth(1);
    expect(await staffMessage.getAttribute("data-author")).toBe("staff");
    expect(await staffMessage.textContent()).toContain(replyText);
    expect(await page.getByTestId("ticket-status").textContent()).toBe("pending");
    expect(await page.getByLabel(`Message to ${customer}`).inputValue()).toBe("");

    // 4. The reply arrives at the customer's mailbox.
    const [, reply] = await mailsTo(customer, 2);
    expect(reply.subject).toBe(`Re: My export is empty [#${reference}]`);
    expect(reply.text).toContain(replyText);
    expect(reply.inReplyTo).toBe(ack.messageId);
    // Replies go to the ticket's own address, whose token proves who answers.
    const replyAddress = reply.replyTo?.value[0]?.address ?? "";
    expect(replyAddress).toMatch(new RegExp(`^support\\+${reference.toLowerCase()}\\.[0-9a-f]{16}@`));

    // 5. The customer answers it; their mail client quotes our email under "wrote:".
    const quoted = reply
      .text!.trimEnd()
      .split("\n")
      .map((line) => `> ${line}`)
      .join("\n");
    const answer = `Found it, thanks! (${javaScriptEnabled ? "js" : "no js"})`;
    const inbound = await apiClient(server.url)(
      "POST",
      "/api/support-requests/inbound",
      {
        from: `Casey Customer <${customer}>`,
        to: replyAddress,
        subject: `Re: ${reply.subject}`,
        text: `${answer}\n\nOn Tue, 4 Mar 2025 at 09:12, ${reply.from?.text} wrote:\n${quoted}\n`,
        messageId: `<answer-${reference}@example.com>`,
      },
      { "x-inbound-secret": process.env.INBOUND_SECRET! },
    );
    expect(inbound.status).toBe(201);
    expect(inbound.body.ticketReference).toBe(reference);

    // 6. The answer shows in the thread, without the quoted email, and reopens the request.
    await page.reload();
    await expect.poll(() => page.getByTestId("message").count()).toBe(3);
    const answerMessage = page.getByTestId("message").nth(2);
    expect(await answerMessage.getAttribute("data-author")).toBe("customer");
    expect(await answerMessage.textContent()).not.toContain("Unverified sender");
    const visible = await answerMessage.locator(":scope > .message-body").textContent();
    expect(visible).toBe(answer);
    const details = answerMessage.locator("details");
    expect(await details.locator("pre").isVisible()).toBe(false);
    await details.locator("summary").click();
    expect(await details.locator("pre").textContent()).toContain(replyText);
    expect(await page.getByTestId("ticket-status").textContent()).toBe("open");
    expect(await staffMessage.getByTestId("delivery").textContent()).toMatch(/Email sent/);

    // 7. Staff closes the request with a status button.
    await page.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => page.getByTestId("ticket-status").textContent()).toBe("closed");
    await page.context().close();
  });
});

describe("the dashboard without a session", () => {
  it("sends /support to the login page", async () => {
    const res = await fetch(`${server.url}/support`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login?redirectTo=%2Fsupport");
  });

  it("shows a human 404 for an unknown reference", async () => {
    const page = await loggedInPage(browser, server.url, "/support");
    const response = await page.goto(`${server.url}/support/SR-999999`);
    expect(response?.status()).toBe(404);
    await page.getByText("There is no support request with this reference.").waitFor();
    await page.context().close();
  });
});

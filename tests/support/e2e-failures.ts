// Before each browser test: when it fails, print what every page still open shows (its
// address and text), so that a failure seen once in CI says what the browser saw.
import { beforeEach } from "vitest";
import { launched } from "./browser";

beforeEach(({ onTestFailed }) => {
  onTestFailed(async () => {
    for (const browser of launched) {
      for (const page of browser.contexts().flatMap((context) => context.pages())) {
        const text = await page
          .locator("body")
          .innerText({ timeout: 2_000 })
          .catch((error: Error) => `(no text: ${error.message.split("\n")[0]})`);
        console.log(`Open page at ${page.url()}:\n${text.slice(0, 3_000)}`);
      }
    }
  });
});

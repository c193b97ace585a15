// Sessions on /account are told by browser and system, not by the raw User-Agent header.
import { describe, expect, it } from "vitest";
import { deviceName } from "~/staff/device-name.server";

const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const EDGE_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0";

describe("deviceName", () => {
  it("names the browser and the system of everyday browsers", () => {
    expect(deviceName(CHROME_WINDOWS)).toBe("Chrome on Windows");
    expect(deviceName(SAFARI_IPHONE)).toBe("Safari on iPhone");
    expect(deviceName(FIREFOX_LINUX)).toBe("Firefox on Linux");
    expect(deviceName(EDGE_MAC)).toBe("Microsoft Edge on macOS");
  });

  it("names a command-line client by the name it gives itself", () => {
    expect(deviceName("curl/8.5.0")).toBe("curl");
  });

  it("says the browser is unknown when there is no header or nothing to read in it", () => {
    expect(deviceName("")).toBe("Unknown browser");
    expect(deviceName(null)).toBe("Unknown browser");
    expect(deviceName("   ")).toBe("Unknown browser");
    expect(deviceName("???")).toBe("Unknown browser");
  });
});

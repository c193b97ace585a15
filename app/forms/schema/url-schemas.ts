// The web addresses a form's settings and fields take. Shared by the server and the browser.
import { z } from "zod";

export const HttpUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, "Use a full http:// or https:// address.");

/** An https:// address: a page a form links to for its visitors (its privacy notice). */
export const HttpsUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      return new URL(value).protocol === "https:";
    } catch {
      return false;
    }
  }, "Use a full https:// address.");

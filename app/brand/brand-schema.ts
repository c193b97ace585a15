// The brand's rules, shared by the API, the settings page (Conform, in the browser too) and
// the pages and emails that show it: a name, and an accent colour that white button text
// stays readable on (WCAG AA, 4.5:1).
import { z } from "zod";

export const DEFAULT_ACCENT = "#2356d6";
export const BRAND_NAME_MAX = 100;
export const LOGO_MAX_BYTES = 512 * 1024;
export const MIN_CONTRAST = 4.5;

/** The relative luminance of a `#rrggbb` colour (WCAG 2.x). */
function luminance(hex: string): number {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of white text on a `#rrggbb` background, e.g. 5.9 for #2356d6. */
export function contrastWithWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}

/** The brand as pages and emails show it. */
export type Brand = {
  /** The company's name; "" when none was set. */
  name: string;
  accentColor: string;
  /** Where the logo is served (its hash in the path, cached for good), or null. */
  logoUrl: string | null;
};

export const AccentColorSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^#[0-9a-f]{6}$/, { message: "Use a colour of the form #rrggbb.", abort: true })
  .superRefine((hex, ctx) => {
    const ratio = contrastWithWhite(hex);
    if (ratio >= MIN_CONTRAST) return;
    ctx.addIssue({
      code: "custom",
      message: `White button text on ${hex} has too little contrast (${ratio.toFixed(2)}:1, WCAG AA needs ${MIN_CONTRAST}:1); choose a darker colour.`,
    });
  });

export const BrandNameSchema = z.string().trim().max(BRAND_NAME_MAX, `At most ${BRAND_NAME_MAX} characters.`);

/** PATCH /api/settings/branding: each key optional; `logo` a base64 `data:` URL, or null to remove it. */
export const BrandPatchSchema = z
  .object({
    name: BrandNameSchema.optional(),
    accentColor: AccentColorSchema.optional(),
    logo: z.string().nullable().optional(),
  })
  .strict();

/** The settings page's form (the logo is a file input, read on the server). */
export const BrandFormSchema = z.object({
  name: BrandNameSchema.default(""),
  accentColor: AccentColorSchema,
  removeLogo: z.boolean().optional(),
});

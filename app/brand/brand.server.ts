// The company's brand (one row): read by every public page and every email, so it is
// cached in process memory for a few seconds, as the public forms are
// (public-form.server.ts); a change made in this process is seen at once.
//
// A logo is kept only when its bytes are a PNG, JPEG, WebP or GIF image, whatever its name
// or declared type says; SVG is refused because it can carry script. It is served from
// /brand/logo/<hash> (docs/decisions/040-brand-logo-and-html-email.md).
import { createHash } from "node:crypto";
import { db } from "~/storage/db.server";
import { DomainError, invalidFields, parseOrThrow } from "~/utils/domain-error";
import { BrandPatchSchema, DEFAULT_ACCENT, LOGO_MAX_BYTES, type Brand } from "./brand-schema";
import type { auditor } from "../audit/audit.server";

export type { Brand };

const BRAND_ID = "brand";
const CACHE_TTL_MS = 3_000;

export type BrandLogo = { bytes: Buffer; type: string; hash: string };

const brandSelect = { name: true, accentColor: true, logoHash: true } as const;

const logoUrlOf = (hash: string | null) => (hash ? `/brand/logo/${hash}` : null);

let cached: { expiresAt: number; brand: Promise<Brand> } | undefined;

async function loadBrand(): Promise<Brand> {
  const row = await db.brand.findUnique({ where: { id: BRAND_ID }, select: brandSelect });
  return {
    name: row?.name ?? "",
    accentColor: row?.accentColor ?? DEFAULT_ACCENT,
    logoUrl: logoUrlOf(row?.logoHash ?? null),
  };
}

/** The brand as the pages and emails show it (a default one before anybody set it). */
export function getBrand(): Promise<Brand> {
  if (!cached || cached.expiresAt < Date.now()) {
    const brand = loadBrand();
    cached = { expiresAt: Date.now() + CACHE_TTL_MS, brand };
    brand.catch(() => {
      cached = undefined;
    });
  }
  return cached.brand;
}

let cachedLogo: { expiresAt: number; logo: Promise<BrandLogo | null> } | undefined;

/** The logo's bytes, for /brand/logo/<hash> and for every email (so cached as the brand is); null when there is none. */
export function getBrandLogo(): Promise<BrandLogo | null> {
  if (!cachedLogo || cachedLogo.expiresAt < Date.now()) {
    const logo = loadLogo();
    cachedLogo = { expiresAt: Date.now() + CACHE_TTL_MS, logo };
    logo.catch(() => {
      cachedLogo = undefined;
    });
  }
  return cachedLogo.logo;
}

async function loadLogo(): Promise<BrandLogo | null> {
  const row = await db.brand.findUnique({
    where: { id: BRAND_ID },
    select: { logo: true, logoType: true, logoHash: true },
  });
  if (!row?.logo || !row.logoType || !row.logoHash) return null;
  return { bytes: Buffer.from(row.logo), type: row.logoType, hash: row.logoHash };
}

const SIGNATURES: { type: string; matches: (bytes: Buffer) => boolean }[] = [
  {
    type: "image/png",
    matches: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  { type: "image/jpeg", matches: (b) => b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) },
  { type: "image/gif", matches: (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")) },
  {
    type: "image/webp",
    matches: (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
  },
];

/** The image type the bytes are, by their first bytes; a refusal naming the field otherwise. */
export function logoTypeOf(bytes: Buffer, path = "logo"): string {
  if (bytes.length === 0) throw invalidFields([{ path, message: "The logo is empty." }]);
  if (bytes.length > LOGO_MAX_BYTES) {
    throw new DomainError("payload_too_large", "The logo is larger than 512 KiB.", [
      { path, message: "At most 512 KiB." },
    ]);
  }
  const found = SIGNATURES.find((signature) => signature.matches(bytes));
  if (found) return found.type;
  const start = bytes.subarray(0, 1024).toString("utf8").trimStart().toLowerCase();
  const message =
    start.startsWith("<") || start.includes("<svg")
      ? "SVG (or other markup) is refused: it can carry script. Use a PNG, JPEG, WebP or GIF image."
      : "The logo is not a PNG, JPEG, WebP or GIF image.";
  throw invalidFields([{ path, message }]);
}

/** A base64 `data:` URL's bytes (its declared type is ignored: the bytes say what it is). */
function bytesOfDataUrl(value: string): Buffer {
  const match = /^data:[^,;]*(?:;[^,;]*)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(value);
  if (!match) {
    throw invalidFields([{ path: "logo", message: "Send the logo as a base64 data: URL, or null to remove it." }]);
  }
  return Buffer.from(match[1], "base64");
}

export type LogoChange = { bytes: Buffer } | null | undefined;

type Audit = ReturnType<typeof auditor>;

/**
 * Changes the brand (each key optional; `logo` null removes it) and records who did it.
 * `input` is the API's JSON body; the settings page passes its parsed form and file.
 */
export async function updateBrand(input: unknown, audit: Audit, logoFile?: LogoChange): Promise<Brand> {
  const patch = parseOrThrow(BrandPatchSchema, input);
  let logo: LogoChange = logoFile;
  if (typeof patch.logo === "string") logo = { bytes: bytesOfDataUrl(patch.logo) };
  else if (patch.logo === null) logo = null;
  const logoData =
    logo === undefined
      ? {}
      : logo === null
        ? { logo: null, logoType: null, logoHash: null }
        : {
            logo: new Uint8Array(logo.bytes),
            logoType: logoTypeOf(logo.bytes),
            logoHash: createHash("sha256").update(logo.bytes).digest("hex").slice(0, 20),
          };
  const data = { name: patch.name, accentColor: patch.accentColor, ...logoData };
  await db.brand.upsert({
    where: { id: BRAND_ID },
    create: { id: BRAND_ID, ...data },
    update: data,
    select: { id: true },
  });
  cached = undefined;
  cachedLogo = undefined;
  await audit("branding.update", "branding", {
    fields: Object.keys(patch).filter((key) => key !== "logo"),
    logo: logo === undefined ? "unchanged" : logo === null ? "removed" : "replaced",
  });
  return getBrand();
}

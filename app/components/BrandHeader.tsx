// The company's name and logo on top of a public page (hosted form, thank-you, support,
// login), and its accent colour for the page's buttons and links (--accent for our own
// stylesheet, --lc-accent for the embed stylesheet the hosted form shares).
import type { Brand } from "~/brand/brand-schema";
import type { CSSProperties } from "react";

export function brandStyle(brand: Brand): CSSProperties {
  return { "--accent": brand.accentColor, "--lc-accent": brand.accentColor } as CSSProperties;
}

export function BrandHeader({ brand }: { brand: Brand }) {
  if (!brand.name && !brand.logoUrl) return null;
  return (
    <header className="brand-header">
      {brand.logoUrl ? <img src={brand.logoUrl} alt={brand.name ? "" : "Company logo"} className="brand-logo" /> : null}
      {brand.name ? <span className="brand-name">{brand.name}</span> : null}
    </header>
  );
}

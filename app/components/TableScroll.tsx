// A wide table's own sideways scroll: words in cells stay whole (app/styles.css), so a
// table of many columns may be wider than the page between phone and desktop widths; it
// then scrolls inside this region (focusable, so a keyboard can scroll it too) instead of
// the whole page. On a phone tables are cards and nothing scrolls.
import type { ReactNode } from "react";

export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

// An address, URL or dotted name that may wrap only where a reader expects it to: after
// "@", ".", "/", "-", "_", ":", "?", "=" or "&" (a <wbr> each), never in the middle of a word. Table
// cells keep words whole (app/styles.css), so this is how a long address still fits.
import { Fragment } from "react";

const BREAK_AFTER = /([@./\-_?&=:])/;

export function Breakable({ text }: { text: string }) {
  const parts = text.split(BREAK_AFTER);
  return (
    <>
      {parts.map((part, index) =>
        BREAK_AFTER.test(part) ? (
          <Fragment key={index}>
            {part}
            <wbr />
          </Fragment>
        ) : (
          part
        ),
      )}
    </>
  );
}

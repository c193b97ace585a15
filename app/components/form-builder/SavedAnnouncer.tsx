// With JavaScript the builder's changes go through fetchers and the page stays: this polite
// live region says what each one saved ("Saved: Email moved up"). Without JavaScript the
// notice on the page after the post says the same (BuilderNotice).
import { useFetchers } from "@remix-run/react";
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from "react";
import type { FormField } from "~/forms/schema/form-schema";
import type { ActionResult } from "./shared";

const SayContext = createContext<(text: string) => void>(() => {});

/** Says a fetcher's "Saved: …" in the builder's live region once its post has saved. */
export function useSayWhenSaved(fetcher: { state: string; data?: ActionResult }) {
  const say = useContext(SayContext);
  const said = useRef<ActionResult | null>(null);
  useEffect(() => {
    const result = fetcher.data;
    if (fetcher.state !== "idle" || !result?.ok || !result.message || said.current === result) return;
    said.current = result;
    say(result.message);
  }, [fetcher.state, fetcher.data, say]);
}

type Removal = { fieldKey: string; label: string };

export function SavedAnnouncer({ saved, children }: { saved: FormField[]; children: ReactNode }) {
  const [said, setSaid] = useState({ text: "", count: 0 });
  // The same words twice ("moved up", "moved up") are a change a screen reader hears:
  // a no-break space alternates at the end.
  const say = useCallback((text: string) => setSaid((last) => ({ text, count: last.count + 1 })), []);
  useSayRemovals(saved, say);
  return (
    <SayContext.Provider value={say}>
      <div role="status" aria-live="polite" data-testid="builder-saved">
        {said.text ? <p className="notice">{said.text + (said.count % 2 ? "" : "\u00a0")}</p> : null}
      </div>
      {children}
    </SayContext.Provider>
  );
}

/**
 * A removed field's row, and with it the fetcher that posted the removal, is gone from the
 * list before the answer comes: the field missing from the saved list once that post is no
 * longer under way says it was removed.
 */
function useSayRemovals(saved: FormField[], say: (text: string) => void) {
  const fetchers = useFetchers();
  const removals = useRef(new Map<string, Removal>());
  useEffect(() => {
    for (const fetcher of fetchers) {
      const posted = fetcher.formData;
      if (posted?.get("intent") !== "remove-field" || removals.current.has(fetcher.key)) continue;
      const fieldKey = String(posted.get("fieldKey"));
      removals.current.set(fetcher.key, { fieldKey, label: labelOf(saved, fieldKey) });
    }
    for (const [key, removal] of removals.current) {
      if (fetchers.some((fetcher) => fetcher.key === key && fetcher.state !== "idle")) continue;
      removals.current.delete(key);
      if (!saved.some((field) => field.key === removal.fieldKey)) say(`Saved: ${removal.label} removed`);
    }
  });
}

const labelOf = (fields: FormField[], fieldKey: string) =>
  fields.find((field) => field.key === fieldKey)?.label ?? fieldKey;

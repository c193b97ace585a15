// One row of the builder's field list, with its drag handle (with JavaScript), its move,
// edit and remove buttons.
import { useSortable } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, type RefObject } from "react";
import { type FormField } from "~/forms/schema/form-schema";
import { FieldEditor } from "./FieldEditor";
import { useSayWhenSaved } from "./SavedAnnouncer";
import { resultFor, type ActionResult, type Draft } from "./shared";

export function FieldRow({
  field,
  fields,
  index,
  count,
  actionData,
  onDraft,
  draggable,
  saving,
}: {
  field: FormField;
  fields: FormField[];
  index: number;
  count: number;
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
  draggable: boolean;
  /** A drop is saving: the handle waits for it (FieldList). */
  saving: boolean;
}) {
  const sortable = useSortable({ id: field.key, disabled: !draggable || saving });
  const editResult = resultFor(actionData, "update-field", field.key);
  const rowResult = resultFor(actionData, ["move-field", "remove-field"], field.key);
  const sameLabel = (other: FormField) => other.label.trim().toLowerCase() === field.label.trim().toLowerCase();
  const duplicate = fields.some((other) => other.key !== field.key && sameLabel(other));
  return (
    <li
      ref={sortable.setNodeRef}
      className={sortable.isDragging ? "card field-row dragging" : "card field-row"}
      style={{ transform: CSS.Translate.toString(sortable.transform), transition: sortable.transition }}
      aria-label={`Field ${field.label}`}
    >
      <div className="field-row-head">
        <div>
          {draggable ? <DragHandle label={field.label} sortable={sortable} /> : null}
          <strong>{field.label}</strong> <span className="badge">{field.type}</span>
          {field.required ? <span className="badge">required</span> : null}
        </div>
        <div className="actions">
          <RowAction
            intent="move-field"
            fieldKey={field.key}
            extra={{ direction: "up" }}
            disabled={index === 0}
            label={`Move ${field.label} up`}
            text="↑ Up"
          />
          <RowAction
            intent="move-field"
            fieldKey={field.key}
            extra={{ direction: "down" }}
            disabled={index === count - 1}
            label={`Move ${field.label} down`}
            text="↓ Down"
          />
          <RemoveField field={field} />
        </div>
      </div>
      {duplicate ? <DuplicateLabel label={field.label} /> : null}
      {rowResult && !rowResult.ok ? (
        <p className="error" role="alert">
          {rowResult.message}
        </p>
      ) : null}
      <details open={editResult ? !editResult.ok : undefined}>
        <summary>Edit {field.label}</summary>
        <FieldEditor
          mode="edit"
          field={field}
          fields={fields}
          idPrefix={`edit-${index}`}
          actionData={editResult}
          onDraft={onDraft}
        />
      </details>
    </li>
  );
}

/** The handle a row is dragged by (with JavaScript only: without, nothing could move it). */
function DragHandle({ label, sortable }: { label: string; sortable: ReturnType<typeof useSortable> }) {
  return (
    <button
      type="button"
      className="drag-handle"
      ref={sortable.setActivatorNodeRef}
      {...sortable.attributes}
      {...sortable.listeners}
      aria-label={`Drag ${label}`}
    >
      ⠿
    </button>
  );
}

/** Removing a field asks first: a <details> that holds the real button, with or without JavaScript. */
function RemoveField({ field }: { field: FormField }) {
  return (
    <details className="confirm-remove">
      <summary>Remove…</summary>
      <div className="confirm-panel">
        <p>Remove “{field.label}” from the form? Leads already sent keep what was entered in it.</p>
        <RowAction intent="remove-field" fieldKey={field.key} label={`Remove ${field.label}`} text="Remove" danger />
      </div>
    </details>
  );
}

function DuplicateLabel({ label }: { label: string }) {
  return (
    <p className="notice warn" data-testid="duplicate-label">
      Another field is also labelled “{label}”: visitors and your exports cannot tell them apart. Give one of them
      another label.
    </p>
  );
}

function RowAction({
  intent,
  fieldKey,
  extra = {},
  disabled,
  label,
  text,
  danger,
}: {
  intent: string;
  fieldKey: string;
  extra?: Record<string, string>;
  disabled?: boolean;
  label: string;
  text: string;
  danger?: boolean;
}) {
  const fetcher = useFetcher<ActionResult>();
  useSayWhenSaved(fetcher);
  const button = useKeptFocus(intent === "move-field", fetcher.state);
  return (
    <fetcher.Form method="post" style={{ margin: 0 }} onSubmit={button.onSubmit}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="fieldKey" value={fieldKey} />
      {Object.entries(extra).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button
        ref={button.ref}
        type="submit"
        className={danger ? "danger" : "secondary"}
        disabled={disabled}
        aria-label={label}
      >
        {text}
      </button>
      {fetcher.data && !fetcher.data.ok ? (
        <span className="error" role="alert">
          {" "}
          {fetcher.data.message}
        </span>
      ) : null}
    </fetcher.Form>
  );
}

/** The Up or Down button whose move was asked last (one builder per page). */
let lastPressed: RefObject<HTMLButtonElement | null> | null = null;

/**
 * Up and Down move their row at once (the list shows the pending order), and a moved node,
 * or a button that becomes disabled at the top or the bottom, loses the focus: it comes back
 * to the button, or to its row's other button that still works, until the move has saved.
 * Only while nothing else took the focus.
 */
function useKeptFocus(enabled: boolean, state: string) {
  const ref = useRef<HTMLButtonElement>(null);
  // "submitting", then "loading", then "idle": kept until the last.
  const keep = useRef<"no" | "asked" | "busy">("no");
  useEffect(() => {
    const button = ref.current;
    // Only the button pressed last keeps the focus: an earlier move still revalidating
    // must not pull it back to its own button.
    if (lastPressed !== ref) keep.current = "no";
    if (keep.current === "no" || !button) return;
    const active = document.activeElement;
    const actions = button.closest(".actions");
    // The focus was lost (to the page), or stayed on a button of this row that is now disabled.
    const lost = active === null || active === document.body;
    if (lost || (actions?.contains(active) && (active as HTMLButtonElement).disabled)) {
      const target = button.disabled ? actions?.querySelector<HTMLButtonElement>("button:not([disabled])") : button;
      target?.focus();
    }
    if (state !== "idle") keep.current = "busy";
    else if (keep.current === "busy") keep.current = "no";
  });
  return {
    ref,
    onSubmit: () => {
      if (!enabled) return;
      keep.current = "asked";
      lastPressed = ref;
    },
  };
}

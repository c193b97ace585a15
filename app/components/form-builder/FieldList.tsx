// The builder's field list. Each row moves with its Up and Down buttons (real form posts,
// without JavaScript too); with JavaScript a row is also dragged by its handle, with the
// mouse, a finger or the keyboard (dnd-kit, decision 034), and a drop posts one
// `move-field` to the dropped position. A drop is a position in the saved order, so the
// handles wait while a drop saves: a second drop never lands on an order the server has
// not got yet.
import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
} from "@dnd-kit/core";
import { SortableContext, sortableKeyboardCoordinates, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { useFetcher } from "@remix-run/react";
import type { FormField } from "~/forms/schema/form-schema";
import { FieldRow } from "./FieldRow";
import { useSayWhenSaved } from "./SavedAnnouncer";
import { useHydrated, type ActionResult, type Draft } from "./shared";

export function FieldList({
  fields,
  actionData,
  onDraft,
}: {
  fields: FormField[];
  actionData: ActionResult | undefined;
  onDraft: (draft: Draft) => void;
}) {
  const hydrated = useHydrated();
  const drop = useFetcher<ActionResult>({ key: "field-drop" });
  useSayWhenSaved(drop);
  const saving = drop.state !== "idle";
  // Nothing to drag one field around.
  const draggable = hydrated && fields.length > 1;
  const sensors = useSensors(
    // A click on the handle is not a drag: it has to move a few pixels first.
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const labelOf = (key: string | number) => fields.find((field) => field.key === key)?.label ?? String(key);
  const positionOf = (key: string | number) => fields.findIndex((field) => field.key === key) + 1;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${labelOf(active.id)}, field ${positionOf(active.id)} of ${fields.length}.`,
    onDragOver: ({ active, over }) =>
      over ? `${labelOf(active.id)} is now at place ${positionOf(over.id)} of ${fields.length}.` : undefined,
    onDragEnd: ({ active, over }) =>
      over ? `${labelOf(active.id)} dropped at place ${positionOf(over.id)} of ${fields.length}.` : undefined,
    onDragCancel: ({ active }) => `Moving ${labelOf(active.id)} was cancelled.`,
  };

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id || saving) return;
    drop.submit(
      { intent: "move-field", fieldKey: String(active.id), to: String(positionOf(over.id) - 1) },
      { method: "post" },
    );
  }

  return (
    <section aria-labelledby="fields-heading">
      <h2 id="fields-heading">Fields</h2>
      {fields.length === 0 ? <p className="muted">No fields yet. Add the first one below.</p> : null}
      {draggable ? <p className="hint">Drag a field by its ⠿ handle, or use its Up and Down buttons.</p> : null}
      {drop.state === "idle" && drop.data && !drop.data.ok ? (
        <p className="error" role="alert">
          {`The field was not moved: ${drop.data.message ?? "the change was refused."}`}
        </p>
      ) : null}
      <DndContext
        // A fixed id: the generated one differs between the server's render and the browser's.
        id="field-list"
        sensors={sensors}
        collisionDetection={closestCenter}
        onDragEnd={onDragEnd}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable:
              "To move a field, press Space or Enter, move it with the arrow keys, and press Space or Enter again to drop it, or Escape to cancel.",
          },
        }}
      >
        <SortableContext items={fields.map((field) => field.key)} strategy={verticalListSortingStrategy}>
          <ol className="field-list" aria-label="Fields">
            {fields.map((field, index) => (
              <FieldRow
                key={field.key}
                field={field}
                fields={fields}
                index={index}
                count={fields.length}
                actionData={actionData}
                onDraft={onDraft}
                draggable={draggable}
                saving={saving}
              />
            ))}
          </ol>
        </SortableContext>
      </DndContext>
    </section>
  );
}

/**
 * A field people never see or reach (off-screen, out of the tab order, hidden from
 * assistive technology) and bots fill in: a filled one marks the post as a bot's.
 */
export function Honeypot({ id, name }: { id: string; name: string }) {
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor={id}>Leave this field empty</label>
      <input id={id} type="text" name={name} tabIndex={-1} autoComplete="off" defaultValue="" />
    </div>
  );
}

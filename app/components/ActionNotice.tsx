// What a settings page's last action did, or why it was refused, announced to screen readers.
export function ActionNotice({ done, error }: { done?: string | null; error?: string | null }) {
  return (
    <>
      {done ? (
        <p className="notice" role="status">
          {done}
        </p>
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

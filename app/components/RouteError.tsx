import { isRouteErrorResponse, useRouteError } from "@remix-run/react";

/** The error boundary of a dashboard page: a human message, inside the layout. */
export function RouteError({ notFound = "There is nothing here." }: { notFound?: string }) {
  const error = useRouteError();
  if (isRouteErrorResponse(error)) {
    const text =
      error.status === 404
        ? notFound
        : typeof error.data === "string"
          ? error.data
          : (error.data?.error?.message ?? error.statusText);
    return (
      <div className="error-panel" role="alert">
        <h2>{error.status === 404 ? "Not found" : `Error ${error.status}`}</h2>
        <p>{text}</p>
      </div>
    );
  }
  return (
    <div className="error-panel" role="alert">
      <h2>Something went wrong</h2>
      <p>The error has been logged. Try again in a moment.</p>
    </div>
  );
}

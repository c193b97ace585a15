import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import stylesheet from "./styles.css?url";
import { useNonce } from "./utils/http/nonce";
import type { LinksFunction, MetaFunction } from "@remix-run/node";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesheet },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

/** The title of a page whose route names none (an error page among them). */
export const meta: MetaFunction = ({ error }) => {
  if (!error) return [{ title: "Lead Capture" }];
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return [{ title: `${notFound ? "Not found" : "Something went wrong"} · Lead Capture` }];
};

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  // Marks the page as hydrated: a browser test waits for it before typing into inputs that
  // hydration would otherwise race.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const [title, message] = isRouteErrorResponse(error)
    ? error.status === 404
      ? ["Not found", "There is nothing at this address."]
      : [`${error.status} ${error.statusText}`, typeof error.data === "string" ? error.data : ""]
    : ["Something went wrong", "The error has been logged. Try again in a moment."];
  return (
    <main className="centered">
      <h1>{title}</h1>
      {message ? <p>{message}</p> : null}
      <p>
        <a href="/">Back to the dashboard</a>
      </p>
    </main>
  );
}

// "Sign in with <OIDC_NAME>" on /login (decision 062): a plain link to /auth/oidc, so that it
// works without JavaScript; the page it lands on sends the browser on to the provider.

export function SsoButton({ name, redirectTo }: { name: string; redirectTo: string }) {
  const href = redirectTo === "/" ? "/auth/oidc" : `/auth/oidc?${new URLSearchParams({ redirectTo })}`;
  return (
    <p className="sso">
      <span className="muted">or</span>{" "}
      <a className="button" href={href}>
        Sign in with {name}
      </a>
    </p>
  );
}

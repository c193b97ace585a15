// What /auth/oidc and its callback show when single sign-on cannot sign the person in
// (decision 062): the reason in words and the way back, never a 500.
import { Link } from "@remix-run/react";

export function SsoRefusal({ message }: { message: string }) {
  return (
    <main className="centered">
      <h1>Single sign-on did not sign you in</h1>
      <p className="error" role="alert">
        {message}
      </p>
      <p>
        <Link to="/login">Back to the sign-in page</Link>
      </p>
    </main>
  );
}

// The per-request CSP nonce (made by server.js, carried in the load context) for the
// inline scripts Remix renders. In the browser there is no provider: nonce is "".
import { createContext, useContext } from "react";

const NonceContext = createContext<string>("");

export const NonceProvider = NonceContext.Provider;

export function useNonce(): string {
  return useContext(NonceContext);
}

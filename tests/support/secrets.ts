// Every test file's secrets start with these, so a whole run's server output can be
// searched for any of them (tests/support/global-setup.ts).
export const SECRET_PREFIXES = [
  "test-session-secret-",
  "test-support-key-",
  "test-inbound-secret-",
  "test-metrics-token-",
] as const;

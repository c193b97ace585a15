// Connection limits for a public endpoint (see .env.example and decisions 016 and 035).

export type ServerLimits = {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerClient: number;
  /** How long SIGTERM may take: requests in flight, then the workers and the database. */
  shutdownTimeoutMs: number;
};

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value.trim() === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a whole number above 0`);
  return parsed;
}

export function serverLimits(source: Record<string, string | undefined>): ServerLimits {
  const limits = {
    headersTimeoutMs: positiveInteger(source.HEADERS_TIMEOUT_MS, 10_000, "HEADERS_TIMEOUT_MS"),
    requestTimeoutMs: positiveInteger(source.REQUEST_TIMEOUT_MS, 30_000, "REQUEST_TIMEOUT_MS"),
    maxConnections: positiveInteger(source.MAX_CONNECTIONS, 1_000, "MAX_CONNECTIONS"),
    // A tenth of the default total: a NAT'd office of browsers (six connections each) fits,
    // and one client alone cannot hold every slot (decision 035).
    maxConnectionsPerClient: positiveInteger(source.MAX_CONNECTIONS_PER_CLIENT, 100, "MAX_CONNECTIONS_PER_CLIENT"),
    shutdownTimeoutMs: positiveInteger(source.SHUTDOWN_TIMEOUT_MS, 20_000, "SHUTDOWN_TIMEOUT_MS"),
  };
  // The headers are part of the request: Node refuses a header limit above the request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error("HEADERS_TIMEOUT_MS must not be larger than REQUEST_TIMEOUT_MS");
  }
  return limits;
}

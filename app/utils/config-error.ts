// A configuration the process cannot run with (app/utils/env.server.ts): reported as one line
// naming each bad variable, never as a stack trace or with the values.
import { log } from "./log.server";

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Ends the process with a ConfigError's one line (exit code 1); anything else is rethrown.
 * Matched by name, not class: the server (build/node) and the app (build/server) are bundled
 * apart, each with its own copy of the class.
 */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof Error && error.name === "ConfigError") {
    log.error(error.message);
    process.exit(1);
  }
  throw error;
}

import tsconfigPaths from "vite-tsconfig-paths";
import { defineConfig } from "vitest/config";

// Integration tests run twice: once on SQLite and once on PostgreSQL. Each test file
// gets a fresh database of its own (tests/support/setup-database.ts), copied from a
// template migrated once per run (tests/support/global-setup.ts).
const database = (name: "sqlite" | "postgres") => ({
  globalSetup: ["tests/support/global-setup.ts"],
  setupFiles: ["tests/support/setup-database.ts"],
  env: { TEST_DATABASE: name },
});

export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default on a 2-core machine is one fork: every file in turn, while most of an
    // integration file's time is spent waiting on its server and database. Two at once took
    // the unit and integration projects from about 27 to 15 minutes here (e2e stays one fork).
    // Three took them from 1,420 to 1,095 s in a local run, but in .ci/run a fork's report to
    // Vitest timed out ("Timeout calling onTaskUpdate") and the e2e project never ran: not kept.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/unit/**/*.test.{ts,tsx}"],
          environment: "jsdom",
          env: { SESSION_SECRET: "unit-tests-only-secret-0123456789abcdef", DATABASE_URL: "file::memory:" },
        },
      },
      {
        extends: true,
        test: { name: "sqlite", include: ["tests/integration/**/*.test.ts"], ...database("sqlite") },
      },
      {
        extends: true,
        test: { name: "postgres", include: ["tests/integration/**/*.test.ts"], ...database("postgres") },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["tests/e2e/**/*.test.ts"],
          ...database("sqlite"),
          setupFiles: [...database("sqlite").setupFiles, "tests/support/e2e-failures.ts"],
          // One browser at a time on a 2-core machine.
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
});

import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

export default defineConfig({
  plugins: [
    !process.env.VITEST &&
      remix({
        // BUILD_DIR lets two checkouts' test runs build side by side without clobbering.
        buildDirectory: process.env.BUILD_DIR ?? "build",
        future: {
          v3_fetcherPersist: true,
          v3_relativeSplatPath: true,
          v3_throwAbortReason: true,
          v3_singleFetch: true,
          v3_lazyRouteDiscovery: true,
        },
      }),
    tsconfigPaths(),
  ],
  build: { target: "es2022" },
  ssr: {
    // Native and CommonJS-heavy server packages stay outside the server bundle.
    external: ["better-sqlite3", "pg", "exceljs", "nodemailer", "rate-limiter-flexible"],
  },
});

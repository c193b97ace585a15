// Builds what Node runs beside the Remix server bundle, to build/node/: the HTTP server
// (server/main.ts → server.js) and the worker threads' entry files (app/**/*.worker.ts →
// workers/), which piscina loads from files of their own. Plain ESM for Node 22, the older of the
// two supported lines (engines: 22 and 24); dependencies stay in node_modules, as for the Remix
// server build.
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

export default defineConfig({
  plugins: [tsconfigPaths()],
  publicDir: false,
  build: {
    ssr: true,
    outDir: `${process.env.BUILD_DIR ?? "build"}/node`,
    emptyOutDir: true,
    target: "node22",
    rollupOptions: {
      input: {
        server: "server/main.ts",
        "workers/inbound-email.worker": "app/support/inbound/inbound-email.worker.ts",
        "workers/lead-export-xlsx.worker": "app/leads/export/lead-export-xlsx.worker.ts",
      },
      output: { entryFileNames: "[name].js", chunkFileNames: "chunks/[name]-[hash].js", format: "esm" },
    },
  },
});

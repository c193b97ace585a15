// Builds /embed.js (app/embed/embed.ts) into build/embed/embed.js: one self-contained,
// minified script that any website can load, for browsers from 2017 on.
import { defineConfig } from "vite";
import tsconfigPaths from "vite-tsconfig-paths";

export default defineConfig({
  plugins: [tsconfigPaths()],
  publicDir: false,
  build: {
    outDir: `${process.env.BUILD_DIR ?? "build"}/embed`,
    emptyOutDir: true,
    target: "es2017",
    lib: { entry: "app/embed/embed.ts", formats: ["iife"], name: "leadCaptureEmbed", fileName: () => "embed.js" },
  },
});

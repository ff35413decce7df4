// Builds the web app into dist/, which `deerflow serve` serves at `/` (packages/server/src/routes/web-app.ts).
// `npm run dev -w @deerflow/web` proxies /api to a `deerflow serve` on 127.0.0.1:2026.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 900,
    // KaTeX's fonts stay files: the page's Content-Security-Policy allows fonts from this server only,
    // not data: URLs.
    assetsInlineLimit: (file) => (/\.(woff2?|ttf)$/.test(file) ? false : undefined),
    rollupOptions: {
      // zod's sources carry comments next to @__PURE__ markers that Rollup cannot place; harmless noise.
      onwarn(warning, warn) {
        if (warning.code === "INVALID_ANNOTATION") return;
        warn(warning);
      },
    },
  },
  server: { proxy: { "/api": "http://127.0.0.1:2026" } },
  test: {
    environment: "jsdom",
    include: ["test/**/*.spec.tsx", "test/**/*.spec.ts"],
    // One process and one jsdom for every file, one file after another (each still imports the app
    // afresh): starting a process and a jsdom per file was most of the run, 23 of 31 s of CPU (8 now).
    pool: "forks",
    poolOptions: { forks: { singleFork: true } },
    setupFiles: ["test/setup.ts"],
  },
});

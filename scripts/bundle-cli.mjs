// The last step of the CLI's build (`npm run build -w @deerflow/cli`, after tsc): bundles the
// `deerflow` command, its dependencies included, into packages/cli/dist/bin/ with esbuild, one chunk
// per command and shared chunks, so a `deerflow` process loads a few large files instead of about
// 1,200 modules. Node's ESM loader pays per module (resolve, read, link, evaluate): loading the harness
// and the server from the bundle takes about half the CPU, in every `deerflow` process (the CLI, CLI
// and cluster tests start hundreds). `deerflow --version` and `--help` still load only the entry.
//
// What stays as it was: the code (the same dist/ modules and sources, not re-transformed beyond
// esbuild's syntax pass), and every `import.meta.url`, replaced by the URL of the module it was written
// in (relative to the bundle, so a moved install keeps working): the harness's bundled skills, the
// server's version and web app, and the CLI's package.json are found where they were. Native and
// optional modules (better-sqlite3, pg-native) stay outside and are loaded from node_modules.
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "packages", "cli");
const outdir = path.join(cli, "dist", "bin");

/** Rewrites `import.meta.url` in each bundled file to that file's own URL, relative to the bundle. */
const ownImportMetaUrl = {
  name: "own-import-meta-url",
  setup(builder) {
    builder.onLoad({ filter: /\.(m?js|ts)$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const relative = path.relative(outdir, args.path).split(path.sep).join("/");
      return {
        contents: text.replaceAll("import.meta.url", `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
        loader: args.path.endsWith(".ts") ? "ts" : "js",
      };
    });
  },
};

// Every chunk lands in outdir itself: the rewritten URLs are relative to it.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { main: path.join(cli, "src", "main.ts") },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: `node${process.versions.node.split(".")[0]}`,
  external: ["better-sqlite3", "pg-native"],
  // CommonJS dependencies inside an ES module bundle still call require() (Node's built-ins).
  banner: {
    js: 'import { createRequire as __deerflowRequire } from "node:module"; const require = __deerflowRequire(import.meta.url);',
  },
  plugins: [ownImportMetaUrl],
  tsconfig: path.join(cli, "tsconfig.build.json"),
  logLevel: "warning",
});

// Compiles the TypeScript the test files load (every *.ts under packages/, outside node_modules and
// dist) to JavaScript once per `npm test`, so each test process runs plain `node` instead of
// `node --import tsx`. tsx's loader hooks run on a second thread for every module a process loads,
// node_modules included: about 1.2 s of CPU per process that loads the harness (the suite starts over
// a hundred), more than many files' tests take. The compile is esbuild's transform, the one tsx applies
// per file, so the code that runs is the same; for all files it takes a few seconds.
//
// Each file keeps its place: packages/harness/src/x.ts becomes <out>/packages/harness/src/x.js, so its
// relative imports (`./y.js`) find the compiled neighbours, and bare ones (`@langchain/core`,
// `@deerflow/harness`) walk up to the repository's node_modules as before. `import.meta.url`,
// `.dirname` and `.filename` are replaced by the source file's own, so fixtures, `../dist/bin/main.js`
// and the like resolve where the test lives. `node --import tsx <file>.ts` still runs any file alone.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./setup.mjs";

export const COMPILED_ROOT = path.join(root, "node_modules", ".cache", "deerflow-tests");

/** Where `file` (a path relative to the root, *.ts) runs from once compiled. */
export function compiledPath(file) {
  return path.join(COMPILED_ROOT, file.replace(/\.ts$/, ".js"));
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

// The root tsconfig's settings that change emitted code (tsx reads the same file).
const tsconfigRaw = {
  compilerOptions: { target: "ES2022", useDefineForClassFields: true, verbatimModuleSyntax: false },
};

/** Compiles every changed *.ts under packages/ (a file is skipped when its output is newer). */
export async function compileTests() {
  const { transform } = await import("esbuild");
  mkdirSync(COMPILED_ROOT, { recursive: true });
  writeFileSync(path.join(COMPILED_ROOT, "package.json"), '{ "type": "module" }\n');
  const files = sources(path.join(root, "packages"));
  let compiled = 0;
  await Promise.all(
    files.map(async (source) => {
      const relative = path.relative(root, source);
      const out = compiledPath(relative);
      try {
        if (statSync(out).mtimeMs >= statSync(source).mtimeMs) return;
      } catch {
        // Not compiled yet.
      }
      const url = pathToFileURL(source).href;
      const result = await transform(readFileSync(source, "utf8"), {
        loader: "ts",
        format: "esm",
        target: `node${process.versions.node}`,
        sourcefile: source,
        tsconfigRaw,
        define: {
          "import.meta.url": JSON.stringify(url),
          "import.meta.dirname": JSON.stringify(path.dirname(source)),
          "import.meta.filename": JSON.stringify(source),
        },
      });
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, result.code);
      compiled++;
    }),
  );
  return { files: files.length, compiled };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  const { files, compiled } = await compileTests();
  console.error(`compiled ${compiled} of ${files} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

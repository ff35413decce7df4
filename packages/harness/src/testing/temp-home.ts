/**
 * A throwaway DEER_FLOW_HOME for tests. Threads, memory, checkpoints and skills all live under the home
 * directory, so every test that touches disk gets its own and removes it afterwards, and tests can run
 * in parallel without seeing each other's files. The same helpers make any scratch directory a test
 * needs (a SQLite file's folder, a decoy outside the home): tests never call `mkdtemp` themselves.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Options of {@link createTempHome}. */
export interface TempHomeOptions {
  /** Files to create, keyed by path relative to the home, e.g. `{ "skills/public/x/SKILL.md": "..." }`. */
  files?: Record<string, string>;
  /** Prefix of the directory name under the OS temp dir. Default "deerflow-home-". */
  prefix?: string;
}

/** A temp home directory; `path` is absolute and symlink-free. */
export interface TempHome {
  path: string;
  /** Removes the directory and everything in it. Safe to call more than once. */
  cleanup(): void;
}

/**
 * Creates an empty home directory (plus `options.files`) under the OS temp dir.
 *
 * @example
 * ```ts
 * const home = createTempHome({ files: { "config.yaml": "models: []\n" } });
 * after(() => home.cleanup());
 * ```
 */
export function createTempHome(options: TempHomeOptions = {}): TempHome {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), options.prefix ?? "deerflow-home-")));
  const cleanup = () => fs.rmSync(root, { recursive: true, force: true });
  try {
    for (const [relative, content] of Object.entries(options.files ?? {})) {
      const target = path.resolve(root, relative);
      if (path.isAbsolute(relative) || !target.startsWith(root + path.sep)) {
        throw new Error(`createTempHome: file path "${relative}" must be relative and stay inside the home directory.`);
      }
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
    }
  } catch (error) {
    cleanup();
    throw error;
  }
  return { path: root, cleanup };
}

/** What {@link tempHome} needs of a test: node:test's `t` (or its `after` hook) fits. */
export interface TestContextLike {
  after(fn: () => unknown): unknown;
}

/**
 * Creates a temp home (or any scratch directory: pass a `prefix`) that is removed when the test ends,
 * and returns its absolute, symlink-free path. The one-line form of `createTempHome` plus `t.after`.
 *
 * @example
 * ```ts
 * test("writes the archive", (t) => {
 *   const home = tempHome(t, { files: { "config.yaml": "models: []\n" } });
 * });
 * ```
 */
export function tempHome(t: TestContextLike, options: TempHomeOptions = {}): string {
  const home = createTempHome(options);
  t.after(() => home.cleanup());
  return home.path;
}

/**
 * Runs `body` with a fresh temp home and removes it afterwards, also when `body` throws.
 *
 * @example
 * ```ts
 * await withTempHome(async (home) => { ... });
 * ```
 */
export async function withTempHome<T>(
  body: (home: string) => T | Promise<T>,
  options: TempHomeOptions = {},
): Promise<T> {
  const home = createTempHome(options);
  try {
    return await body(home.path);
  } finally {
    home.cleanup();
  }
}

/**
 * `grep`: searches file contents by regular expression (or literal text) in one file or a directory
 * tree, optionally filtered by a glob. Binary and very large files are skipped; long lines are cut;
 * dependency and VCS folders are skipped unless the glob names them.
 *
 * Patterns run on RE2 (the pure-JS `re2js` port), whose matching time is linear in the input: a
 * JavaScript `RegExp` such as `^(a+)+$` backtracks exponentially and would block the whole harness
 * (and Ctrl-C) for minutes. RE2 has no backreferences or lookarounds; such patterns get an error.
 */
import fs from "node:fs";
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { z } from "zod";
import { readFileChecked } from "../sandbox/safe-fs.js";
import type { AllowedPath, PathPolicy } from "../sandbox/path-policy.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { GREP_MAX_RESULTS_CEILING, READ_FILE_WHOLE_MAX_BYTES } from "./limits.js";
import { clampResults } from "./glob.js";
import { type ToolFailure, sandboxTool, toolFailure } from "./sandbox-tool.js";
import { decodeText, statTarget } from "./text-file.js";
import { descriptionArg, optionalInt } from "./tool-args.js";
import { skippedDirsFor, walkDir } from "./walk.js";

/** Dependencies of {@link createGrepTool}. */
export interface GrepToolOptions {
  provider: SandboxProvider;
  /** Default number of matches. */
  defaultMaxResults: number;
}

const LINE_MAX_CHARS = 500;
const WALK_MAX_ENTRIES = 100_000;

/** A compiled search: `test(line)` runs in time linear in the line's length. */
export interface LineMatcher {
  test(line: string): boolean;
}

/** Compiles the search with RE2; returns a failure for a pattern RE2 cannot run. */
export function compileSearch(pattern: string, literal: boolean, caseSensitive: boolean): LineMatcher | ToolFailure {
  if (literal) {
    const needle = caseSensitive ? pattern : pattern.toLowerCase();
    return { test: (line) => (caseSensitive ? line : line.toLowerCase()).includes(needle) };
  }
  try {
    const compiled = RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
    return { test: (line) => compiled.matcher(line).find() };
  } catch (error) {
    return toolFailure(
      `Invalid regex pattern: ${(error as Error).message}. grep uses RE2 syntax (linear-time): no backreferences ` +
        "(\\1) or lookarounds ((?=, (?!, (?<=); use literal: true for plain text.",
    );
  }
}

/** Builds the `grep` tool. */
export function createGrepTool(options: GrepToolOptions) {
  return sandboxTool({
    name: "grep",
    provider: options.provider,
    description:
      "Search file contents for a regular expression (or literal text with literal: true) in a file or directory tree. " +
      "Case-insensitive unless case_sensitive is true. Returns path:line: text for each matching line.",
    schema: z.object({
      description: descriptionArg,
      pattern: z.string().describe("Regular expression (JavaScript syntax), or plain text when literal is true."),
      path: z.string().describe("File or directory to search."),
      glob: z.string().nullish().describe("Only search files matching this glob, e.g. *.py or src/**/*.ts."),
      literal: z.boolean().nullish().describe("Treat pattern as plain text. Default false."),
      case_sensitive: z.boolean().nullish().describe("Match case exactly. Default false."),
      max_results: optionalInt.describe(
        `Most matching lines to return (default ${100}, at most ${GREP_MAX_RESULTS_CEILING}).`,
      ),
    }),
    run: async ({ pattern, path: input, glob, literal, case_sensitive, max_results }, { sandbox }) => {
      const target = sandbox.policy.resolve(input, "read");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      const stat = statTarget(target);
      if (!stat) return toolFailure(`Path not found: ${target.virtualPath}`);
      const regex = compileSearch(pattern, literal ?? false, case_sensitive ?? false);
      if ("error" in regex) return regex;
      const limit = clampResults(max_results, options.defaultMaxResults, GREP_MAX_RESULTS_CEILING);
      const files = stat.isDirectory()
        ? await candidateFiles(target.virtualPath, target.realPath, glob ?? null)
        : [target.virtualPath];
      const lines: string[] = [];
      let more = false;
      for (const virtualFile of files) {
        if (more) break;
        const file = sandbox.policy.resolve(virtualFile, "read");
        if (!file.ok) continue;
        const text = await readSearchable(sandbox.policy, file);
        if (text === null) continue;
        text.split("\n").forEach((line, index) => {
          if (more || !regex.test(line)) return;
          if (lines.length >= limit) {
            more = true;
            return;
          }
          const shown = line.length > LINE_MAX_CHARS ? `${line.slice(0, LINE_MAX_CHARS)}…` : line;
          lines.push(`${virtualFile}:${index + 1}: ${shown}`);
        });
      }
      if (lines.length === 0) return `No matches found for pattern '${pattern}' in ${target.virtualPath}`;
      if (more)
        lines.push(
          `... (showing the first ${limit} matches; narrow the pattern, path or glob, or raise max_results up to ${GREP_MAX_RESULTS_CEILING})`,
        );
      return sandbox.mask(lines.join("\n"));
    },
  });
}

/** Files (and links to files) under the root, filtered by the glob; the caller re-checks each with the policy. */
async function candidateFiles(virtualRoot: string, hostRoot: string, glob: string | null): Promise<string[]> {
  const { entries } = await walkDir(hostRoot, {
    maxDepth: 64,
    maxEntries: WALK_MAX_ENTRIES,
    skipDirs: skippedDirsFor(glob ?? ""),
  });
  const matches = glob ? picomatch(glob, { dot: true, basename: !glob.includes("/") }) : null;
  return entries
    .filter((entry) => entry.kind === "file" || entry.kind === "symlink")
    .filter((entry) => !matches || matches(entry.relative))
    .map((entry) => `${virtualRoot}/${entry.relative}`);
}

async function readSearchable(policy: PathPolicy, file: AllowedPath): Promise<string | null> {
  try {
    const stat = fs.statSync(file.realPath);
    if (!stat.isFile() || stat.size > READ_FILE_WHOLE_MAX_BYTES) return null;
    return decodeText((await readFileChecked(policy, file, READ_FILE_WHOLE_MAX_BYTES)).data);
  } catch {
    return null;
  }
}

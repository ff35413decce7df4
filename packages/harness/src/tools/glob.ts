/**
 * `glob`: finds files by pattern under a directory (picomatch syntax, dotfiles included). Results are
 * virtual paths; symlinked directories are not followed; dependency and VCS folders (`node_modules`,
 * `.git`, ...) are skipped, and not returned by `include_dirs` either, unless the pattern names them. Upload
 * staging files are never listed.
 */
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { isInsideDir } from "../sandbox/virtual-paths.js";
import { GLOB_MAX_RESULTS_CEILING } from "./limits.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";
import { statTarget } from "./text-file.js";
import { descriptionArg, optionalInt } from "./tool-args.js";
import { skippedDirsFor, walkDir } from "./walk.js";

/** Dependencies of {@link createGlobTool}. */
export interface GlobToolOptions {
  provider: SandboxProvider;
  /** Default number of results. */
  defaultMaxResults: number;
}

const WALK_MAX_ENTRIES = 100_000;

/** Clamps a requested result count to [1, ceiling], falling back to the default. */
export function clampResults(requested: number | null | undefined, fallback: number, ceiling: number): number {
  const value = requested == null || !Number.isFinite(requested) ? fallback : Math.floor(requested);
  return Math.min(Math.max(1, value), ceiling);
}

/** Makes an absolute pattern relative to the search root; null when it points elsewhere. */
export function relativePattern(pattern: string, virtualRoot: string): string | null {
  if (!pattern.startsWith("/")) return pattern;
  if (!isInsideDir(pattern, virtualRoot)) return null;
  return pattern.slice(virtualRoot.length).replace(/^\/+/, "") || "**";
}

/** Builds the `glob` tool. */
export function createGlobTool(options: GlobToolOptions) {
  return sandboxTool({
    name: "glob",
    provider: options.provider,
    description:
      "Find files whose path (relative to `path`) matches a glob pattern, e.g. **/*.py or reports/*.md. Returns absolute paths.",
    schema: z.object({
      description: descriptionArg,
      pattern: z.string().describe("Glob pattern relative to path, e.g. **/*.md."),
      path: z.string().describe("Directory to search, e.g. /mnt/user-data/workspace."),
      include_dirs: z.boolean().nullish().describe("Also return matching directories. Default false."),
      max_results: optionalInt.describe(
        `Most results to return (default ${200}, at most ${GLOB_MAX_RESULTS_CEILING}).`,
      ),
    }),
    run: async ({ pattern, path: input, include_dirs, max_results }, { sandbox }) => {
      const target = sandbox.policy.resolve(input, "read");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      if (!statTarget(target)?.isDirectory()) return toolFailure(`Directory not found: ${target.virtualPath}`);
      const relative = relativePattern(pattern, target.virtualPath);
      if (relative === null)
        return toolFailure(
          `the pattern ${pattern} is not under ${target.virtualPath}. Use a relative pattern such as **/*.md.`,
        );
      const limit = clampResults(max_results, options.defaultMaxResults, GLOB_MAX_RESULTS_CEILING);
      const matches = picomatch(relative, { dot: true });
      const skipDirs = skippedDirsFor(relative);
      const { entries, truncated: walkCut } = await walkDir(target.realPath, {
        maxDepth: 64,
        maxEntries: WALK_MAX_ENTRIES,
        skipDirs,
      });
      const found: string[] = [];
      let more = false;
      for (const entry of entries) {
        // The walk lists a skipped folder without entering it; as a match it would be noise too.
        if (entry.kind === "dir" && (!include_dirs || skipDirs.has(path.posix.basename(entry.relative)))) continue;
        if (!matches(entry.relative)) continue;
        if (found.length >= limit) {
          more = true;
          break;
        }
        found.push(`${target.virtualPath}/${entry.relative}${entry.kind === "dir" ? "/" : ""}`);
      }
      if (found.length === 0) return `No files matched pattern '${pattern}' under ${target.virtualPath}`;
      const notes = [
        more
          ? `... (showing the first ${limit} matches; narrow the pattern or path, or raise max_results up to ${GLOB_MAX_RESULTS_CEILING})`
          : "",
        walkCut ? `... (search stopped after ${WALK_MAX_ENTRIES} entries)` : "",
      ].filter(Boolean);
      return sandbox.mask([...found, ...notes].join("\n"));
    },
  });
}

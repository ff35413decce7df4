/**
 * `ls`: a two-level listing of a directory, directories marked with a trailing `/`, symlinks with
 * `@`. Output past the cap keeps its head and says how to see less.
 */
import { z } from "zod";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { headTruncate } from "../sandbox/truncate.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";
import { statTarget } from "./text-file.js";
import { descriptionArg } from "./tool-args.js";
import { type WalkEntry, walkDir } from "./walk.js";

/** Dependencies of {@link createLsTool}. */
export interface LsToolOptions {
  provider: SandboxProvider;
  /** Output cap in characters (head kept). */
  maxChars: number;
}

const LS_MAX_ENTRIES = 5000;

/** One line per entry: the virtual path, `/` after directories, `@` after symlinks. */
export function formatListing(virtualRoot: string, entries: readonly WalkEntry[]): string {
  if (entries.length === 0) return "(empty)";
  const base = virtualRoot === "/" ? "" : virtualRoot;
  return entries
    .map((entry) => `${base}/${entry.relative}${entry.kind === "dir" ? "/" : entry.kind === "symlink" ? "@" : ""}`)
    .join("\n");
}

/** Builds the `ls` tool. */
export function createLsTool(options: LsToolOptions) {
  return sandboxTool({
    name: "ls",
    provider: options.provider,
    description:
      "List a directory two levels deep. Directories end with '/', symlinks with '@'. Start with /mnt/user-data to see " +
      `workspace, uploads and outputs, or ${options.provider.skillsContainerPath ?? "/mnt/skills"} for the skills.`,
    schema: z.object({
      description: descriptionArg,
      path: z.string().describe("Absolute path of the directory to list."),
    }),
    run: async ({ path: input }, { sandbox }) => {
      const target = sandbox.policy.resolve(input, "read");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      const stat = statTarget(target);
      if (!stat) return toolFailure(`Directory not found: ${target.virtualPath}`);
      if (!stat.isDirectory())
        return toolFailure(`${target.virtualPath} is a file, not a directory. Use read_file to read it.`);
      const { entries, truncated } = await walkDir(target.realPath, { maxDepth: 2, maxEntries: LS_MAX_ENTRIES });
      const listing =
        formatListing(target.virtualPath, entries) +
        (truncated ? `\n... (stopped after ${LS_MAX_ENTRIES} entries)` : "");
      return sandbox.mask(headTruncate(listing, options.maxChars, "Use a more specific path to see fewer results"));
    },
  });
}

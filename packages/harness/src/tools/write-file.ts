/**
 * `write_file`: creates or overwrites a file (or appends to it), creating parent directories. A single
 * non-append payload is capped (DeerFlow: 80 KiB) because a model that emits one huge argument tends
 * to get it truncated by the provider; the error says how to write in chunks instead.
 */
import { z } from "zod";
import { withPathLock, writeFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";
import { describeFsError, statTarget } from "./text-file.js";
import { descriptionArg } from "./tool-args.js";

/** Dependencies of {@link createWriteFileTool}. */
export interface WriteFileToolOptions {
  provider: SandboxProvider;
  /** Largest non-append payload in UTF-8 bytes; 0 = no limit. */
  maxBytes: number;
}

const ERROR_TEXT_MAX = 2000;

/** The sentence for an oversized payload (without "Error: "), or null when it fits. */
export function writeSizeError(content: string, append: boolean, maxBytes: number): string | null {
  const bytes = Buffer.byteLength(content);
  if (append || maxBytes <= 0 || bytes <= maxBytes) return null;
  return (
    `write_file content is ${bytes} bytes, over the ${maxBytes}-byte limit for one write. ` +
    "Write the first part now, then add the rest with append: true in chunks, or change an existing file with str_replace."
  );
}

/** Builds the `write_file` tool. */
export function createWriteFileTool(options: WriteFileToolOptions) {
  return sandboxTool({
    name: "write_file",
    provider: options.provider,
    description:
      "Write text to a file, creating it and any missing parent directories, or replacing its content. " +
      "Set append to true to add to the end instead. Put deliverables in /mnt/user-data/outputs/ and scratch work in " +
      `/mnt/user-data/workspace/. ${options.provider.skillsContainerPath ?? "/mnt/skills"}/ is read-only.`,
    schema: z.object({
      description: descriptionArg,
      path: z.string().describe("Absolute path of the file to write."),
      content: z.string().describe("The text to write."),
      append: z.boolean().nullish().describe("Append to the end of the file instead of replacing it. Default false."),
    }),
    describeError: (error, { path: input }) => describeFsError(error, String(input)),
    maxErrorChars: ERROR_TEXT_MAX,
    run: async ({ path: input, content, append }, { sandbox }) => {
      const target = sandbox.policy.resolve(input, "write");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      const tooBig = writeSizeError(content, append ?? false, options.maxBytes);
      if (tooBig) return toolFailure(tooBig);
      if (statTarget(target)?.isDirectory()) return toolFailure(`${target.virtualPath} is a directory.`);
      await withPathLock(target.realPath, () => writeFileChecked(sandbox.policy, target, content, append ?? false));
      return "OK";
    },
  });
}

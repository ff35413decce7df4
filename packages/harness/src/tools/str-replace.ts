/**
 * `str_replace`: edits a file by replacing an exact string. Unlike DeerFlow (which silently replaces
 * the first match), an ambiguous `old_str` is refused unless `replace_all` is set, and an empty
 * `old_str` is an error rather than a silent "OK": both are mistakes the model should see.
 */
import { z } from "zod";
import { readFileChecked, withPathLock, writeFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { READ_FILE_WHOLE_MAX_BYTES } from "./limits.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";
import { decodeText, describeFsError, statTarget } from "./text-file.js";
import { descriptionArg } from "./tool-args.js";

/** Replaces `oldStr` in `text`; returns the new text or an error sentence (without "Error: "). */
export function replaceExact(
  text: string,
  oldStr: string,
  newStr: string,
  replaceAll: boolean,
  virtualPath: string,
): { text: string } | { error: string } {
  if (oldStr === "")
    return { error: "old_str is empty. Give the exact text to replace, including enough context to be unique." };
  const count = text.split(oldStr).length - 1;
  if (count === 0) return { error: `String to replace not found in file: ${virtualPath}` };
  if (count > 1 && !replaceAll) {
    return {
      error: `old_str appears ${count} times in ${virtualPath}. Include more surrounding text so it matches exactly once, or set replace_all to true to replace every occurrence.`,
    };
  }
  if (replaceAll) return { text: text.split(oldStr).join(newStr) };
  const at = text.indexOf(oldStr);
  return { text: text.slice(0, at) + newStr + text.slice(at + oldStr.length) };
}

/** Builds the `str_replace` tool. */
export function createStrReplaceTool(options: { provider: SandboxProvider }) {
  return sandboxTool({
    name: "str_replace",
    provider: options.provider,
    description:
      "Replace an exact string in a text file. old_str must match the file exactly (whitespace included) and, unless " +
      "replace_all is true, occur exactly once.",
    schema: z.object({
      description: descriptionArg,
      path: z.string().describe("Absolute path of the file to edit."),
      old_str: z.string().describe("The exact text to replace."),
      new_str: z.string().describe("The replacement text."),
      replace_all: z
        .boolean()
        .nullish()
        .describe("Replace every occurrence instead of requiring exactly one. Default false."),
    }),
    describeError: (error, { path: input }) => describeFsError(error, String(input)),
    run: async ({ path: input, old_str, new_str, replace_all }, { sandbox }) => {
      const target = sandbox.policy.resolve(input, "write");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      const stat = statTarget(target);
      if (!stat) return toolFailure(`File not found: ${target.virtualPath}`);
      if (!stat.isFile()) return toolFailure(`${target.virtualPath} is not a regular file.`);
      if (stat.size > READ_FILE_WHOLE_MAX_BYTES)
        return toolFailure(`${target.virtualPath} is too large to edit with str_replace (${stat.size} bytes).`);
      return await withPathLock(target.realPath, async () => {
        const text = decodeText((await readFileChecked(sandbox.policy, target, READ_FILE_WHOLE_MAX_BYTES)).data);
        if (text === null) return toolFailure(`cannot edit '${target.virtualPath}': it appears to be a binary file.`);
        const result = replaceExact(text, old_str, new_str, replace_all ?? false, target.virtualPath);
        if ("error" in result) return toolFailure(result.error);
        await writeFileChecked(sandbox.policy, target, result.text, false);
        return "OK";
      });
    },
  });
}

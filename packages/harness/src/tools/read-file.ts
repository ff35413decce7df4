/**
 * `read_file`: returns a text file, whole or by 1-based inclusive line range, capped with advice to
 * use a range. Binary files are refused with a pointer to `bash` or `view_image`. Reading a skill's
 * SKILL.md also records a `skill_context_entry` on the ToolMessage (see `skill-context-entry.ts`).
 */
import { createInterface } from "node:readline";
import { ToolMessage } from "langchain";
import { z } from "zod";
import type { PathPolicy, AllowedPath } from "../sandbox/path-policy.js";
import { openReadChecked, readFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { headTruncate } from "../sandbox/truncate.js";
import { READ_FILE_WHOLE_MAX_BYTES } from "./limits.js";
import { isSkillFile, skillContextEntry } from "./skill-context-entry.js";
import { type ToolFailure, sandboxTool, toolFailure } from "./sandbox-tool.js";
import { decodeText, describeFsError, rangeNote, selectLines, startPastEnd, statTarget } from "./text-file.js";
import { descriptionArg, optionalLine } from "./tool-args.js";

/** Dependencies of {@link createReadFileTool}. */
export interface ReadFileToolOptions {
  provider: SandboxProvider;
  /** Output cap in characters (head kept). */
  maxChars: number;
}

/** Builds the `read_file` tool. */
export function createReadFileTool(options: ReadFileToolOptions) {
  return sandboxTool({
    name: "read_file",
    provider: options.provider,
    description:
      "Read a text file. Give start_line and end_line (1-based, inclusive) to read part of a long file. " +
      `Paths are under /mnt/user-data/ (workspace, uploads, outputs) or ${options.provider.skillsContainerPath ?? "/mnt/skills"}/.`,
    schema: z.object({
      description: descriptionArg,
      path: z.string().describe("Absolute path of the file, e.g. /mnt/user-data/workspace/notes.md."),
      start_line: optionalLine.describe("First line to return, 1-based. Omit to start at the beginning."),
      end_line: optionalLine.describe("Last line to return, inclusive. Omit to read to the end."),
    }),
    run: async ({ path: input, start_line, end_line }, { sandbox, runtime }) => {
      const target = sandbox.policy.resolve(input, "read");
      if (!target.ok) return toolFailure(target.error, { verbatim: true });
      const text = await readSelection(sandbox.policy, target, start_line, end_line);
      if ("error" in text) return text;
      const content = sandbox.mask(
        headTruncate(text.output, options.maxChars, "Use start_line/end_line to read a specific range"),
      );
      if (!text.skillSource) return content;
      return new ToolMessage({
        content,
        name: "read_file",
        tool_call_id: runtime?.toolCallId ?? "",
        additional_kwargs: { skill_context_entry: skillContextEntry(target.virtualPath, text.skillSource) },
      });
    },
  });
}

async function readSelection(
  policy: PathPolicy,
  target: AllowedPath,
  startLine: number | null | undefined,
  endLine: number | null | undefined,
): Promise<{ output: string; skillSource?: string } | ToolFailure> {
  const badRange = rangeNote(startLine, endLine);
  if (badRange) return { output: badRange };
  const stat = statTarget(target);
  if (!stat) return toolFailure(`File not found: ${target.virtualPath}`);
  if (stat.isDirectory()) return toolFailure(`${target.virtualPath} is a directory. Use ls to list it.`);
  if (!stat.isFile())
    return toolFailure(
      `${target.virtualPath} is not a regular file (a FIFO, socket or device); read_file only reads regular files.`,
    );
  if (stat.size > READ_FILE_WHOLE_MAX_BYTES) {
    if (startLine == null && endLine == null) {
      return toolFailure(
        `${target.virtualPath} is ${stat.size} bytes, too large to read whole. Read it in parts with start_line and end_line, or inspect it with bash (head, grep).`,
      );
    }
    const lines = await streamLines(policy, target, startLine ?? 1, endLine ?? Number.MAX_SAFE_INTEGER);
    return typeof lines === "string" ? { output: lines } : lines;
  }
  let data: Buffer;
  try {
    data = (await readFileChecked(policy, target, READ_FILE_WHOLE_MAX_BYTES)).data;
  } catch (error) {
    return toolFailure(describeFsError(error, target.virtualPath));
  }
  const text = decodeText(data);
  if (text === null) {
    return toolFailure(
      `cannot read '${target.virtualPath}' as text: it appears to be a binary file. Inspect it with bash (file, xxd | head), or use view_image for images.`,
    );
  }
  const output = selectLines(text, startLine, endLine, target.virtualPath);
  if (typeof output !== "string") return output;
  return isSkillFile(target.virtualPath, policy.skillsVirtualPath) ? { output, skillSource: text } : { output };
}

/** Line range of a file too big to load: streamed, stops at `end`. */
async function streamLines(
  policy: PathPolicy,
  target: AllowedPath,
  start: number,
  end: number,
): Promise<string | ToolFailure> {
  const handle = await openReadChecked(policy, target);
  try {
    const lines: string[] = [];
    let index = 0;
    let size = 0;
    for await (const line of createInterface({
      input: handle.createReadStream({ encoding: "utf8", autoClose: false }),
      crlfDelay: Infinity,
    })) {
      index += 1;
      if (index < start) continue;
      if (index > end || size > READ_FILE_WHOLE_MAX_BYTES) break;
      if (line.includes("\u0000"))
        return toolFailure(`cannot read '${target.virtualPath}' as text: it appears to be a binary file.`);
      lines.push(line);
      size += line.length + 1;
    }
    return index < start ? startPastEnd(index, target.virtualPath) : lines.join("\n");
  } finally {
    await handle.close();
  }
}

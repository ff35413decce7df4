/**
 * The skill_context capture: which skills the agent has loaded, so compaction does not make it forget
 * that it is following one (and so checkpoints need not keep whole SKILL.md bodies, deer-flow PR #3887).
 *
 * A skill counts as loaded only when a file-read tool call on `{container}/**\/SKILL.md` succeeded and its
 * ToolMessage carries `additional_kwargs.skill_context_entry = { path, description }` for that same path,
 * stamped by the sandbox file tools from the parsed frontmatter. The body is never read, and a skill the
 * model merely mentions, or cats through `bash`, does not count.
 */
import { posix } from "node:path";
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { normalizeSkillDescription } from "../../state/reducers.js";
import type { SkillEntry } from "../../state/shapes.js";
import { isAIMessage, matchToolResults } from "../../messages/tool-pairs.js";

/** Where skills are mounted and which tools read files. */
export interface SkillCaptureOptions {
  /** Virtual mount of the skills tree, e.g. "/mnt/skills". */
  skillsContainerPath: string;
  /** File-read tool names; [] disables capture. */
  skillReadToolNames: readonly string[];
}

/** A SKILL.md read that could not be recorded, and why. */
export interface SkippedSkillRead {
  toolCallId: string;
  path: string;
  reason: string;
}

/** The normalized SKILL.md path a read call targets, or null when it is not a skill read. */
export function skillReadPath(args: Record<string, unknown> | undefined, container: string): string | null {
  const raw = args?.path ?? args?.file_path ?? args?.filepath;
  if (typeof raw !== "string" || !raw.startsWith("/")) return null;
  const path = posix.normalize(raw);
  const root = posix.normalize(container).replace(/\/+$/, "");
  return path.startsWith(`${root}/`) && posix.basename(path) === "SKILL.md" ? path : null;
}

/**
 * Skill entries for every successful, stamped SKILL.md read in `messages`, ordered by last read (a
 * re-read moves a skill to the end); `loaded_at` is the ToolMessage's index. Reads whose result lacks a
 * matching stamp are returned in `skipped`.
 */
export function extractSkills(
  messages: readonly BaseMessage[],
  options: SkillCaptureOptions,
): { entries: SkillEntry[]; skipped: SkippedSkillRead[] } {
  const names = new Set(options.skillReadToolNames);
  const reads = (message: BaseMessage) =>
    isAIMessage(message)
      ? (message.tool_calls ?? []).filter(
          (call) => call.id && names.has(call.name) && skillReadPath(call.args, options.skillsContainerPath),
        )
      : [];
  const matches = matchToolResults(messages, (message) => reads(message).map((call) => call.id!));
  const found: Array<{ entry: SkillEntry; at: number }> = [];
  const skipped: SkippedSkillRead[] = [];
  for (const [index, results] of matches) {
    reads(messages[index]!).forEach((call, position) => {
      const at = results[position];
      if (at === undefined) return; // still running
      const result = messages[at] as ToolMessage;
      // A failed read. Results stored before read_file marked failures with status "error" carry only the text.
      if (result.status === "error" || result.text.startsWith("Error:")) return;
      const path = skillReadPath(call.args, options.skillsContainerPath)!;
      const stamp = result.additional_kwargs?.skill_context_entry as
        | { path?: unknown; description?: unknown }
        | undefined;
      if (typeof stamp?.path !== "string" || posix.normalize(stamp.path) !== path) {
        skipped.push({
          toolCallId: call.id!,
          path,
          reason: stamp ? "skill_context_entry names another path" : "no skill_context_entry on the result",
        });
        return;
      }
      const entry = {
        name: posix.basename(posix.dirname(path)),
        path,
        description: normalizeSkillDescription(stamp.description),
        loaded_at: at,
      };
      found.push({ entry, at });
    });
  }
  const byPath = new Map<string, SkillEntry>();
  for (const { entry } of found.sort((a, b) => a.at - b.at)) {
    byPath.delete(entry.path);
    byPath.set(entry.path, entry);
  }
  return { entries: [...byPath.values()], skipped };
}

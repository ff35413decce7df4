/**
 * The `<subagent_system>` block of the lead's system prompt, present only when delegation is on.
 *
 * Delegation is expensive (a subagent re-reads files and re-derives context the lead already has), so
 * the block argues for doing work directly by default, states the same per-response limit the
 * subagent-limit middleware enforces, and lists the kinds the `task` tool accepts. It depends only on
 * the options, so the lead's prompt stays static for a thread.
 */
import { escapeData } from "../messages/text.js";
import { clampMaxConcurrent, clampMaxTotal } from "./concurrency.js";
import type { SubagentType } from "./types.js";

/** Options of {@link renderSubagentPromptSection}. */
export interface SubagentPromptSectionOptions {
  /** Per-response limit of `task` calls, clamped to [1, 4] like the middleware does. */
  maxConcurrent?: number;
  /** Per-run cap of `task` calls, clamped to [1, 50] like the middleware does. Default 6. */
  maxTotal?: number;
  /** Whether `task` offers `run_in_background` (the `background_tasks` tool exists). Default false. */
  background?: boolean;
  /** The kinds the `task` tool accepts (e.g. `registry.list()`). */
  types: readonly Pick<SubagentType, "name" | "description">[];
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0]?.trim() ?? "";
}

/**
 * Renders the `<subagent_system>` prompt section.
 *
 * @example
 * renderSubagentPromptSection({ maxConcurrent: 3, types: registry.list() });
 */
export function renderSubagentPromptSection(options: SubagentPromptSectionOptions): string {
  const n = clampMaxConcurrent(options.maxConcurrent);
  const total = clampMaxTotal(options.maxTotal);
  const perResponse =
    n === 1
      ? "- Subagents run one at a time: at most 1 `task` call per response; extra calls are dropped without running. Send the next one after the first returns."
      : `- At most ${n} \`task\` calls per response; extra calls are dropped without running. For more parts, send the next batch after the first returns.\n- Put independent \`task\` calls in the same response: they run in parallel.`;
  const waiting = options.background
    ? '- The `task` tool waits for the subagent and returns its result. With `run_in_background: true` it returns at once with a task_id instead: keep working, then call `background_tasks` with action "collect" to wait for the result. Collect every background task before your final answer: unfinished ones are cancelled when your run ends.'
    : "- The `task` tool waits for the subagent and returns its result; there is nothing to poll.";
  const types = options.types.map((type) => `- ${type.name}: ${escapeData(firstLine(type.description))}`).join("\n");
  return `<subagent_system>
You can hand self-contained jobs to subagents with the \`task\` tool. A subagent starts with no knowledge of this conversation: it sees only the prompt you write, works in the same sandbox (same files), and returns one final report.

Do the work yourself by default. Delegate only when the gain is clear:
- several independent, substantial parts (separate research questions, separate modules) can run at the same time, or
- one long, noisy job (many commands, large outputs) would otherwise flood this conversation.
Do not delegate when the parts depend on each other's results, when they would edit the same files, when the job is a few tool calls, or when you already have what the job needs.

Rules:
${perResponse}
- At most ${total} \`task\` calls per run (one user request); later calls are refused, so plan your delegations.
- Each prompt must stand alone: the goal, the relevant context and file paths, constraints, and what the final report must contain.
${waiting}
- A result marked failed, timed out or cancelled is final for that call: decide whether to retry with a better prompt or do the work yourself.
- Subagents cannot show files to the user: present their output files yourself.

Available subagent types:
${types}
</subagent_system>`;
}

/**
 * Chain slot 5: facts that must outlive compaction (the summary, delegated work, loaded skills, the
 * agent's task notes, the user's goal) kept in state and shown to the model on every call.
 *
 * Capture runs in `beforeModel`, before summarization (slot 6) can remove the messages, and again in
 * `afterModel`, so a `task` dispatch is on the ledger before the tool even runs. `wrapModelCall` projects
 * the block into the request only; nothing is written back to `messages`.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { mergeSkillContext } from "../../state/reducers.js";
import type { AcceptanceGap, DelegationEntry, SkillEntry } from "../../state/shapes.js";
import { changedAcceptanceGaps, extractAcceptanceUpdates } from "./acceptance-capture.js";
import { threadStateSubset } from "../../state/thread-state.js";
import { changedDelegations, currentRunMessages, extractDelegations } from "./delegation-capture.js";
import { projectDurableContext, renderDurableContext } from "./durable-context-render.js";
import { projectGoal } from "./goal-reminder.js";
import { extractSkills } from "./skill-capture.js";
import type { Logger } from "../../logger.js";

/** Options of {@link durableContextMiddleware}. */
export interface DurableContextOptions {
  /** Virtual mount of the skills tree. Default "/mnt/skills". */
  skillsContainerPath?: string;
  /** Tools whose successful SKILL.md reads mark a skill loaded; [] disables skill capture. Default: read_file, read, view, cat. */
  skillReadToolNames?: readonly string[];
  /** Receives warnings about skill reads that could not be recorded. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

interface CaptureState {
  messages: BaseMessage[];
  delegations?: DelegationEntry[];
  skill_context?: SkillEntry[];
  acceptance_gaps?: AcceptanceGap[] | null;
}

/** The run's id: the server passes it in `configurable.run_id`; a caller may pass it in the context. */
function runIdOf(runtime: { context?: unknown; configurable?: Record<string, unknown> }): string | undefined {
  const runId = (runtime.context as { run_id?: unknown } | undefined)?.run_id ?? runtime.configurable?.run_id;
  return typeof runId === "string" && runId ? runId : undefined;
}

const sameSkills = (a: readonly SkillEntry[], b: readonly SkillEntry[]) =>
  a.length === b.length && a.every((entry, i) => entry.path === b[i]!.path && entry.description === b[i]!.description);

/**
 * Builds the durable-context middleware.
 *
 * @example
 * durableContextMiddleware({ skillsContainerPath: "/mnt/skills", skillReadToolNames: ["read_file", "read", "view", "cat"] });
 */
export function durableContextMiddleware(options: DurableContextOptions = {}) {
  const skillOptions = {
    skillsContainerPath: options.skillsContainerPath ?? "/mnt/skills",
    skillReadToolNames: options.skillReadToolNames ?? ["read_file", "read", "view", "cat"],
  };
  const warn = options.onWarning ?? ((message: string) => console.warn(`[durable-context] ${message}`));
  const warned = new Set<string>();

  const captureDelegations = (state: CaptureState, runId: string | undefined) => {
    const extracted = extractDelegations(currentRunMessages(state.messages, runId), { runId });
    const changed = changedDelegations(state.delegations ?? [], extracted);
    if (changed.length > 0) options.logger?.debug(`captured ${changed.length} delegation(s)`);
    return changed.length > 0 ? { delegations: changed } : {};
  };

  const captureAcceptance = (state: CaptureState, runId: string | undefined) => {
    const updates = extractAcceptanceUpdates(currentRunMessages(state.messages, runId));
    const changed = changedAcceptanceGaps(state.acceptance_gaps ?? [], updates);
    if (changed.length > 0) options.logger?.debug(`captured ${changed.length} acceptance criterion update(s)`);
    return changed.length > 0 ? { acceptance_gaps: changed } : {};
  };

  const captureSkills = (state: CaptureState) => {
    if (skillOptions.skillReadToolNames.length === 0) return {};
    const { entries, skipped } = extractSkills(state.messages, skillOptions);
    for (const skip of skipped) {
      if (warned.has(skip.toolCallId)) continue;
      if (warned.size > 1000) warned.clear();
      warned.add(skip.toolCallId);
      warn(`skill read of ${skip.path} not recorded: ${skip.reason}`);
    }
    const current = state.skill_context ?? [];
    if (sameSkills(mergeSkillContext(current, entries), mergeSkillContext(current, []))) return {};
    options.logger?.debug(`captured ${entries.length} skill read(s)`);
    return { skill_context: entries };
  };

  const update = (patch: object) => (Object.keys(patch).length > 0 ? patch : undefined);

  return createMiddleware({
    name: "durable-context",
    stateSchema: threadStateSubset(
      "summary_text",
      "delegations",
      "skill_context",
      "goal",
      "task_notes",
      "acceptance_gaps",
    ),
    beforeModel: (state, runtime) =>
      update({
        ...captureDelegations(state, runIdOf(runtime)),
        ...captureAcceptance(state, runIdOf(runtime)),
        ...captureSkills(state),
      }),
    afterModel: (state, runtime) => update(captureDelegations(state, runIdOf(runtime))),
    wrapModelCall: (request, handler) => {
      const block = renderDurableContext({
        summaryText: request.state.summary_text,
        delegations: request.state.delegations,
        skills: request.state.skill_context,
        taskNotes: request.state.task_notes,
        acceptanceGaps: request.state.acceptance_gaps ?? [],
        historySearch: request.tools?.some((tool) => (tool as { name?: string }).name === "search_history"),
      });
      const projected = projectDurableContext(request.messages, request.systemMessage, block);
      const messages = projectGoal(projected.messages, request.state.goal);
      return handler(
        block === null ? { ...request, messages } : { ...request, systemMessage: projected.systemMessage, messages },
      );
    },
  });
}

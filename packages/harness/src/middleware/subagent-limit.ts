/**
 * Keeps the lead from starting more subagents than allowed, per response and per run.
 *
 * Models ignore "at most N" in prompts often enough; a response with ten `task` calls would start ten
 * parallel agents, and a long run could keep delegating forever. After each model call this keeps the
 * first N `task` calls of the response, drops the rest before any tool runs (other tool calls are
 * untouched), and reports how many it dropped. N is clamped to [1, 4] (default 3; 1 means one at a
 * time), the same number the prompt section announces.
 *
 * Across a run (one invoke), at most `maxTotal` `task` calls run (clamped to [1, 50], default 6). Calls
 * past that cap are not dropped but answered with an error result that says the cap is reached, so the
 * model keeps going with its own tools instead of the run ending on a bare message. The count lives in
 * state (`subagent_run_count`, last value, reset in `beforeAgent`), so it survives a resume mid-run.
 */
import { AIMessage, type ToolCall, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { copyAIMessage } from "../messages/ai-message.js";
import { clampMaxConcurrent, clampMaxTotal } from "../subagents/concurrency.js";
import type { Logger } from "../logger.js";

/** Options of {@link subagentLimitMiddleware}. */
export interface SubagentLimitOptions {
  /** `task` calls allowed per response; clamped to [1, 4]. Default 3. */
  maxConcurrent?: number;
  /** `task` calls allowed per run; clamped to [1, 50]. Default 6. */
  maxTotal?: number;
  /** Receives a message whenever calls are dropped or refused. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** What {@link limitTaskCalls} changed. */
export interface TaskCallLimitResult {
  /** The same message (same id) with only the kept calls. */
  message: AIMessage;
  dropped: ToolCall[];
}

function rebuild(message: AIMessage, toolCalls: ToolCall[], droppedIds: ReadonlySet<string>): AIMessage {
  const kept = (id: unknown) => typeof id !== "string" || !droppedIds.has(id);
  const content = Array.isArray(message.content)
    ? message.content.filter(
        (block) => (block as { type?: string }).type !== "tool_use" || kept((block as { id?: unknown }).id),
      )
    : message.content;
  const rawCalls = message.additional_kwargs?.tool_calls;
  const additional_kwargs = Array.isArray(rawCalls)
    ? { ...message.additional_kwargs, tool_calls: rawCalls.filter((call) => kept(call.id)) }
    : message.additional_kwargs;
  return copyAIMessage(message, { content: content as AIMessage["content"], tool_calls: toolCalls, additional_kwargs });
}

/**
 * Keeps the first `maxTasks` `task` calls of `message` and drops the others, together with their raw
 * provider payloads (`additional_kwargs.tool_calls`, Anthropic `tool_use` blocks). Other tool calls are
 * kept in place. Returns `undefined` when nothing needs dropping.
 */
export function limitTaskCalls(message: AIMessage, maxTasks: number): TaskCallLimitResult | undefined {
  const calls = message.tool_calls ?? [];
  const kept: ToolCall[] = [];
  const dropped: ToolCall[] = [];
  let tasks = 0;
  for (const call of calls) {
    if (call.name === "task" && ++tasks > maxTasks) dropped.push(call);
    else kept.push(call);
  }
  if (dropped.length === 0) return undefined;
  const droppedIds = new Set(dropped.map((call) => call.id).filter((id): id is string => typeof id === "string"));
  return { message: rebuild(message, kept, droppedIds), dropped };
}

/** The result a `task` call gets once the run's cap is reached. */
export function subagentCapMessage(maxTotal: number): string {
  return (
    `Error: the subagent limit for this run is reached (${maxTotal} task calls, subagents.max_total_per_run); this task was not started. ` +
    "Use the subagent results you already have, do the remaining work yourself with your own tools, or summarise what is left for the user."
  );
}

const stateSchema = z.object({
  /** `task` calls started in the current run (last value; reset by `beforeAgent`). */
  subagent_run_count: z.number().optional(),
  /** Ids of `task` calls of the current run refused because the cap was reached. */
  subagent_capped_ids: z.array(z.string()).optional(),
});

/**
 * Drops `task` calls beyond the per-response limit (`afterModel`) and refuses those beyond the per-run
 * cap (`wrapToolCall`). Put it in the chain only when subagents are enabled.
 *
 * @example
 * createAgent({ model, tools, middleware: [subagentLimitMiddleware({ maxConcurrent: 2, maxTotal: 6 })] });
 */
export function subagentLimitMiddleware(options: SubagentLimitOptions = {}) {
  const limit = clampMaxConcurrent(options.maxConcurrent);
  const maxTotal = clampMaxTotal(options.maxTotal);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  return createMiddleware({
    name: "subagent-limit",
    stateSchema,
    beforeAgent: () => ({ subagent_run_count: 0, subagent_capped_ids: [] }),
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const limited = limitTaskCalls(last, limit);
      if (limited) {
        options.logger?.info(`dropped ${limited.dropped.length} task call(s) over the limit of ${limit} per response`);
        warn(
          `subagent-limit: the model asked for ${limit + limited.dropped.length} task calls in one response; ` +
            `kept the first ${limit}, dropped ${limited.dropped.length} (${limited.dropped.map((call) => call.id ?? "no id").join(", ")}).`,
        );
      }
      const message = limited?.message ?? last;
      const tasks = (message.tool_calls ?? []).filter((call) => call.name === "task");
      if (tasks.length === 0) return limited ? { messages: [limited.message] } : undefined;
      const prior = state.subagent_run_count ?? 0;
      const allowed = Math.max(0, maxTotal - prior);
      const capped = tasks.slice(allowed).map((call) => call.id ?? "");
      if (capped.length > 0)
        options.logger?.info(`refused ${capped.length} task call(s) over the cap of ${maxTotal} per run`);
      if (capped.length > 0)
        warn(`subagent-limit: this run reached its cap of ${maxTotal} task calls; refused ${capped.length} more.`);
      return {
        ...(limited ? { messages: [limited.message] } : {}),
        subagent_run_count: prior + Math.min(allowed, tasks.length),
        subagent_capped_ids: [...(state.subagent_capped_ids ?? []), ...capped],
      };
    },
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall;
      if (call.name !== "task" || !(request.state.subagent_capped_ids ?? []).includes(call.id ?? ""))
        return handler(request);
      return new ToolMessage({
        content: subagentCapMessage(maxTotal),
        tool_call_id: call.id ?? "",
        name: call.name,
        status: "error",
      });
    },
  });
}

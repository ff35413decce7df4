/**
 * Keeps a lead response from starting more subagents at once than allowed.
 *
 * Models ignore "at most N" in prompts often enough; a response with ten `task` calls would start ten
 * parallel agents. After each model call this keeps the first N `task` calls of the response, drops the
 * rest before any tool runs (other tool calls are untouched), and reports how many it dropped. N is
 * clamped to [2, 4] (default 3), the same number the prompt section announces.
 */
import { AIMessage, type ToolCall } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { clampMaxConcurrent } from "../subagents/concurrency.js";

/** Options of {@link subagentLimitMiddleware}. */
export interface SubagentLimitOptions {
  /** `task` calls allowed per response; clamped to [2, 4]. Default 3. */
  maxConcurrent?: number;
  /** Receives a message whenever calls are dropped. Default: `console.warn`. */
  onWarning?: (message: string) => void;
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
    ? message.content.filter((block) => (block as { type?: string }).type !== "tool_use" || kept((block as { id?: unknown }).id))
    : message.content;
  const rawCalls = message.additional_kwargs?.tool_calls;
  const additional_kwargs = Array.isArray(rawCalls)
    ? { ...message.additional_kwargs, tool_calls: rawCalls.filter((call) => kept(call.id)) }
    : message.additional_kwargs;
  return new AIMessage({
    id: message.id,
    name: message.name,
    content: content as AIMessage["content"],
    tool_calls: toolCalls,
    invalid_tool_calls: message.invalid_tool_calls,
    additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
  });
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

/**
 * Drops `task` calls beyond the per-response limit (`afterModel`). Put it in the chain only when
 * subagents are enabled.
 *
 * @example
 * createAgent({ model, tools, middleware: [subagentLimitMiddleware({ maxConcurrent: 2 })] });
 */
export function subagentLimitMiddleware(options: SubagentLimitOptions = {}) {
  const limit = clampMaxConcurrent(options.maxConcurrent);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  return createMiddleware({
    name: "subagent-limit",
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last)) return undefined;
      const limited = limitTaskCalls(last, limit);
      if (!limited) return undefined;
      warn(
        `subagent-limit: the model asked for ${limit + limited.dropped.length} task calls in one response; ` +
          `kept the first ${limit}, dropped ${limited.dropped.length} (${limited.dropped.map((call) => call.id ?? "no id").join(", ")}).`,
      );
      return { messages: [limited.message] };
    },
  });
}

/**
 * Progress of delegated runs as custom stream events.
 *
 * The `task` tool blocks the lead until its subagent ends, so without these the user would see nothing
 * for minutes. Each event is a small JSON-safe object written to the run's custom stream
 * (`streamMode: "custom"`): one `task_started`, a `task_running` per new subagent step, and exactly one
 * terminal event. Steps are summarized, never forwarded whole, so a subagent's file dumps stay out of
 * the lead's stream.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { TokenCounts } from "../state/shapes.js";
import { CriterionCheck, VerificationFlag } from "./verification.js";

/** Longest text kept from a step's content. */
export const STEP_TEXT_MAX_CHARS = 500;
/** Longest JSON kept from one tool call's arguments. */
export const STEP_ARGS_MAX_CHARS = 200;

/** A short, serializable view of one subagent step (an AI turn or a tool result). */
export const SubagentStepSummary = z.object({
  role: z.enum(["ai", "tool"]),
  /** The same as `role`, under the key DeerFlow's UI reads (`message.type`). */
  type: z.enum(["ai", "tool"]),
  /** The same as `text`, under the key DeerFlow's UI reads (`message.content`). */
  content: z.string(),
  id: z.string().optional(),
  /** The step's text, cut to 500 characters. */
  text: z.string(),
  /** AI steps: the tools it called, arguments as JSON cut to 200 characters. */
  tool_calls: z.array(z.object({ name: z.string(), args: z.string() })).optional(),
  /** Tool steps: which tool answered and whether it failed. */
  name: z.string().optional(),
  status: z.enum(["success", "error"]).optional(),
});
export type SubagentStepSummary = z.infer<typeof SubagentStepSummary>;

/** Token counts summed over the subagent's model calls. */
export const SubagentTokenUsage = TokenCounts;
export type SubagentTokenUsage = z.infer<typeof SubagentTokenUsage>;

/** Every event a delegation emits, discriminated by `type`. */
export const TaskEvent = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("task_started"),
    task_id: z.string(),
    description: z.string(),
    subagent_type: z.string(),
  }),
  z.object({
    type: z.literal("task_running"),
    task_id: z.string(),
    message_index: z.number(),
    message: SubagentStepSummary,
  }),
  z.object({
    type: z.literal("task_completed"),
    task_id: z.string(),
    result: z.string(),
    usage: SubagentTokenUsage.optional(),
  }),
  z.object({ type: z.literal("task_failed"), task_id: z.string(), error: z.string() }),
  z.object({ type: z.literal("task_cancelled"), task_id: z.string(), error: z.string().optional() }),
  z.object({ type: z.literal("task_timed_out"), task_id: z.string(), error: z.string() }),
  /** Right before the terminal event: the lead runtime's check of the report (receipts, flags, criteria). */
  z.object({
    type: z.literal("task_verified"),
    task_id: z.string(),
    receipts: z.number(),
    citations: z.array(z.string()),
    flags: z.array(VerificationFlag),
    criteria: z.array(CriterionCheck),
  }),
  /** A task waiting for a free subagent slot (`subagents.queue`); `position` counts from 1. */
  z.object({ type: z.literal("task_queued"), task_id: z.string(), position: z.number() }),
]);
export type TaskEvent = z.infer<typeof TaskEvent>;

/** Receives task events; must not throw (failures are swallowed by the emitter). */
export type TaskEventSink = (event: TaskEvent) => void;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Summarizes an AI or tool message for a `task_running` event; other messages give `undefined`. */
export function summarizeStep(message: BaseMessage): SubagentStepSummary | undefined {
  if (AIMessage.isInstance(message)) {
    const calls = (message.tool_calls ?? []).map((call) => ({
      name: call.name,
      args: cut(JSON.stringify(call.args ?? {}), STEP_ARGS_MAX_CHARS),
    }));
    const text = cut(message.text, STEP_TEXT_MAX_CHARS);
    return {
      role: "ai",
      type: "ai",
      ...(message.id ? { id: message.id } : {}),
      text,
      content: text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
  }
  if (ToolMessage.isInstance(message)) {
    const text = cut(message.text, STEP_TEXT_MAX_CHARS);
    return {
      role: "tool",
      type: "tool",
      ...(message.id ? { id: message.id } : {}),
      text,
      content: text,
      ...(message.name ? { name: message.name } : {}),
      status: message.status === "error" ? "error" : "success",
    };
  }
  return undefined;
}

/** Fans one event out to several sinks, ignoring sinks that throw (a closed stream must not fail a task). */
export function fanOut(...sinks: (TaskEventSink | undefined)[]): TaskEventSink {
  const live = sinks.filter((sink): sink is TaskEventSink => typeof sink === "function");
  return (event) => {
    for (const sink of live) {
      try {
        sink(event);
      } catch {
        // A sink that fails (e.g. the run's stream already closed after a cancel) must not break the others.
      }
    }
  };
}

/**
 * Stops a model that keeps sending the same tool call.
 *
 * A model stuck in a loop repeats one call (same tool, same arguments) response after response; each
 * round costs a model call and the run never ends on its own. After each model response this compares
 * its tool calls (names and arguments, order ignored) with the previous response's. From the
 * `warnThreshold`-th identical response in a row, each result carries a warning that the result will
 * not change; at the `hardLimit`-th, the calls are not run and the run ends with a note saying why.
 * Counting restarts with each run (one invoke) and whenever the calls change.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { appendToToolResult, stopWithNote } from "./stop-run.js";
import type { Logger } from "../logger.js";
import { LOOP_DETECTION_DEFAULTS } from "../config/defaults.js";

/** Options of {@link loopDetectionMiddleware}. */
export interface LoopDetectionOptions {
  /** Identical responses in a row from which results carry a warning. Default 3. */
  warnThreshold?: number;
  /** Identical responses in a row at which the run stops. Default 5. */
  hardLimit?: number;
  /** Receives a message when a run is stopped. Default: `console.warn`. */
  onWarning?: (message: string) => void;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` compare equal. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What identifies a response's tool calls: each call's name and arguments, order ignored. */
export function toolCallsKey(message: AIMessage): string {
  return (message.tool_calls ?? [])
    .map((call) => `${call.name}:${stableJson(call.args ?? {})}`)
    .sort()
    .join("\n");
}

const stateSchema = z.object({
  /** {@link toolCallsKey} of the last response with tool calls in this run. */
  loop_last_key: z.string().optional(),
  /** How many responses in a row sent exactly those calls. */
  loop_repeats: z.number().optional(),
});

/**
 * Chain slot 11b: warns on repeated identical tool calls and stops the run at the hard limit.
 *
 * @example
 * createAgent({ model, tools, middleware: [loopDetectionMiddleware({ warnThreshold: 3, hardLimit: 5 })] });
 */
export function loopDetectionMiddleware(options: LoopDetectionOptions = {}) {
  const warnAt = options.warnThreshold ?? LOOP_DETECTION_DEFAULTS.warn_threshold;
  const stopAt = Math.max(warnAt, options.hardLimit ?? LOOP_DETECTION_DEFAULTS.hard_limit);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  return createMiddleware({
    name: "loop-detection",
    stateSchema,
    beforeAgent: () => ({ loop_last_key: "", loop_repeats: 0 }),
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last) || !last.tool_calls?.length) return undefined;
      const key = toolCallsKey(last);
      const repeats = key === state.loop_last_key ? (state.loop_repeats ?? 0) + 1 : 1;
      if (repeats >= warnAt && repeats < stopAt)
        options.logger?.info(`the same tool call was sent ${repeats} times in a row; warning the model`);
      if (repeats < stopAt) return { loop_last_key: key, loop_repeats: repeats };
      const names = [...new Set(last.tool_calls.map((call) => call.name))].join(", ");
      options.logger?.info(`stopped the run after ${repeats} identical tool calls`);
      warn(
        `loop-detection: the model sent the same tool call (${names}) ${repeats} times in a row; the run was stopped.`,
      );
      const note =
        `[Stopped: the same tool call (${names}) with the same arguments was sent ${repeats} times in a row, so the run ended here ` +
        `instead of looping (loop_detection.hard_limit = ${stopAt}). Ask again with more detail, or continue in a new message.]`;
      return { messages: [stopWithNote(last, note, "loop_capped")], loop_last_key: "", loop_repeats: 0 };
    },
    wrapToolCall: async (request, handler) => {
      const repeats = request.state.loop_repeats ?? 0;
      const result = await handler(request);
      if (repeats < warnAt || !ToolMessage.isInstance(result)) return result;
      return appendToToolResult(
        result,
        `[Loop warning: you have sent this same call (${request.toolCall.name} with the same arguments) ${repeats} times in a row; its result will not change. ` +
          `Use what you have, change the arguments or the approach, or give your final answer. At ${stopAt} the run stops.]`,
      );
    },
  });
}

/**
 * Stops a model that keeps sending the same tool call.
 *
 * A model stuck in a loop repeats one call (same tool, same arguments) response after response, or
 * cycles through a few (A, B, A, B, ...); each round costs a model call and the run never ends on its
 * own. After each model response this looks at the tool calls (names and arguments, order ignored) of
 * the run's last `windowSize` responses and counts how often the newest one came round in an exact
 * cycle: A, A, A (period 1) and A, B, A, B, A (period 2) both give 3. A call that recurs with different
 * work in between (run the tests, edit, run the tests, edit another line) is progress, not a cycle, and
 * is not counted. From the `warnThreshold`-th time, each result carries a warning that the result will
 * not change; at the `hardLimit`-th, the calls are not run and the run ends with a note saying why.
 * Counting restarts with each run (one invoke).
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
  /**
   * How many recent responses with tool calls are kept to find cycles (A, B, A, B) in; a cycle of P
   * calls is stopped only when `hardLimit` rounds of it fit. Default 20; never less than `hardLimit`.
   */
  windowSize?: number;
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

/** How often the newest entry came round in an exact cycle, and the cycle's length (1: the same call in a row). */
export interface Repeats {
  count: number;
  period: number;
}

/**
 * Counts how often the newest entry of `recent` (oldest first) repeats in the longest exact cycle that
 * ends with it; on a tie, the shortest cycle.
 *
 * @example
 * loopRepeats(["A", "B", "A", "B", "A"]);        // → { count: 3, period: 2 }
 * loopRepeats(["B", "A", "A"]);                  // → { count: 2, period: 1 }
 * loopRepeats(["test", "edit 1", "test", "edit 2", "test"]); // → { count: 2, period: 2 }: the edits differ, no longer cycle
 */
export function loopRepeats(recent: readonly string[]): Repeats {
  const last = recent.length - 1;
  let best: Repeats = { count: last >= 0 ? 1 : 0, period: 1 };
  for (let period = 1; period <= last; period += 1) {
    let matches = 0;
    while (last - matches - period >= 0 && recent[last - matches] === recent[last - matches - period]) matches += 1;
    // The cycle covers the last matches + period entries; the newest entry recurs every `period` of them.
    const count = Math.floor((matches + period - 1) / period) + 1;
    if (count > best.count) best = { count, period };
  }
  return best;
}

const stateSchema = z.object({
  /** {@link toolCallsKey} of the last response with tool calls in this run. */
  loop_last_key: z.string().optional(),
  /** How often those calls came round in a cycle ({@link loopRepeats} of `loop_recent`). */
  loop_repeats: z.number().optional(),
  /** {@link toolCallsKey}s of this run's latest responses with tool calls, oldest first (at most the window). */
  loop_recent: z.array(z.string()).optional(),
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
  const windowSize = Math.max(stopAt, options.windowSize ?? LOOP_DETECTION_DEFAULTS.window_size);
  const warn = options.onWarning ?? ((message: string) => console.warn(message));
  const howOften = ({ count, period }: Repeats) =>
    period === 1 ? `${count} times in a row` : `${count} times, going round the same ${period} calls again and again`;
  return createMiddleware({
    name: "loop-detection",
    stateSchema,
    beforeAgent: () => ({ loop_last_key: "", loop_repeats: 0, loop_recent: [] }),
    afterModel: (state) => {
      const last = state.messages.at(-1);
      if (!last || !AIMessage.isInstance(last) || !last.tool_calls?.length) return undefined;
      const key = toolCallsKey(last);
      const recent = [...(state.loop_recent ?? []), key].slice(-windowSize);
      const repeats = loopRepeats(recent);
      const { count } = repeats;
      if (count >= warnAt && count < stopAt)
        options.logger?.info(`the same tool call was sent ${howOften(repeats)}; warning the model`);
      if (count < stopAt) return { loop_last_key: key, loop_repeats: count, loop_recent: recent };
      const names = [...new Set(last.tool_calls.map((call) => call.name))].join(", ");
      options.logger?.info(`stopped the run after the same tool call was sent ${howOften(repeats)}`);
      warn(`loop-detection: the model sent the same tool call (${names}) ${howOften(repeats)}; the run was stopped.`);
      const note =
        `[Stopped: the same tool call (${names}) with the same arguments was sent ${howOften(repeats)}, so the run ended here ` +
        `instead of looping (loop_detection.hard_limit = ${stopAt}). Ask again with more detail, or continue in a new message.]`;
      return {
        messages: [stopWithNote(last, note, "loop_capped")],
        loop_last_key: "",
        loop_repeats: 0,
        loop_recent: [],
      };
    },
    wrapToolCall: async (request, handler) => {
      const repeats = request.state.loop_repeats ?? 0;
      const result = await handler(request);
      if (repeats < warnAt || !ToolMessage.isInstance(result)) return result;
      const cycle = loopRepeats(request.state.loop_recent ?? []);
      return appendToToolResult(
        result,
        `[Loop warning: you have sent this same call (${request.toolCall.name} with the same arguments) ${howOften(cycle)}; its result will not change. ` +
          `Use what you have, change the arguments or the approach, or give your final answer. At ${stopAt} the run stops.]`,
      );
    },
  });
}

/**
 * Makes every model request well-formed with respect to tool calls, in the request only.
 *
 * OpenAI-compatible servers answer HTTP 400 when an assistant message with `tool_calls` is not followed
 * by one tool message per call, and Anthropic when a `tool_use` has no `tool_result` right after it. A
 * thread gets there when a run is interrupted or a tool is cancelled (the call stays unanswered), when a
 * provider returns `invalid_tool_calls` or a call only in its raw payload, or when other middleware
 * inserts a human message between a call and its result (deer-flow#1936, #2319, #2853). Then every later turn fails the same way. This
 * middleware rebuilds the request so each call is followed by its result (or a placeholder error), drops
 * results whose call is gone, and leaves the checkpointed messages untouched. It also renames recurring
 * tool-call ids in the model's answer, which the agent loop would otherwise never execute.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { threadStateSubset } from "../../state/thread-state.js";
import { renameRecurringToolCallIds, usedToolCallIds } from "./recurring-tool-call-ids.js";
import { copyAIMessage } from "../../messages/ai-message.js";
import { isAIMessage, isToolMessage, matchToolResults } from "../../messages/tool-pairs.js";
import type { Logger } from "../../logger.js";

/** Placeholder result for a call that never returned (interrupted run, cancelled tool). */
export const INTERRUPTED_TOOL_RESULT = "[Tool call was interrupted and did not return a result.]";
const MISSING_NAME_RESULT =
  "[Tool call could not be executed because the tool name was missing or empty. Call one of the available tools by name.]";
const UNKNOWN_TOOL = "unknown_tool";
const MAX_ERROR_ECHO = 500;

interface RequestToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Text of the placeholder when this call has no result. */
  placeholder: string;
  /** The call came without a usable id: results saved with a blank id may answer it. */
  idMissing: boolean;
  /** The call came without a usable name: a nameless result of it is renamed too. */
  nameMissing: boolean;
}

const blank = (value: unknown): boolean => typeof value !== "string" || value.trim() === "";

/** `text` parsed as a JSON object, or undefined when it is not one. */
function jsonObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the model reads in place of an invalid call's result. A `write_file` call usually fails to parse
 * because a whole large document was put in one call (deer-flow#2894); retrying it the same way fails
 * again, so that call gets advice on what to do instead. The malformed arguments are never echoed back.
 */
function invalidCallResult(name: string, error: unknown): string {
  const detail = typeof error === "string" && error.trim() ? error.slice(0, MAX_ERROR_ECHO) : "";
  if (name === "write_file")
    return (
      "[write_file was not executed: its arguments were not valid JSON, so nothing was written. This usually " +
      "happens when a large document is sent in one call and its content holds unescaped quotes, backslashes, " +
      "inline JSON or code fences. Do not send the same large write_file again: give the content as plain text " +
      "in your reply, or, if a file is still needed, split it and write it in several smaller parts." +
      `${detail ? ` Parser error: ${detail}` : ""}]`
    );
  return `[Tool call could not be executed because its arguments were invalid: ${detail || "the arguments are not valid JSON"}]`;
}

/**
 * The calls of an AI message as the request will carry them, all with ids and names: valid ones, then
 * invalid ones, or, when the message has neither, those of its raw provider payload (which the OpenAI
 * client sends in that case, and other providers never see).
 */
function requestCalls(message: AIMessage, index: number): { calls: RequestToolCall[]; changed: boolean } {
  let changed = false;
  const calls: RequestToolCall[] = [];
  const add = (
    source: string,
    position: number,
    call: { id?: unknown; name?: unknown; args: Record<string, unknown> },
    placeholder: string,
  ) => {
    const idMissing = blank(call.id);
    const nameMissing = blank(call.name);
    if (idMissing || nameMissing) changed = true;
    calls.push({
      id: idMissing ? `synthetic_tool_call_${index}_${source}_${position}` : (call.id as string),
      name: nameMissing ? UNKNOWN_TOOL : (call.name as string),
      args: call.args,
      placeholder: nameMissing ? MISSING_NAME_RESULT : placeholder,
      idMissing,
      nameMissing,
    });
  };
  const valid = message.tool_calls ?? [];
  const invalid = message.invalid_tool_calls ?? [];
  valid.forEach((call, position) =>
    add("valid", position, { ...call, args: call.args ?? {} }, INTERRUPTED_TOOL_RESULT),
  );
  invalid.forEach((call, position) => {
    changed = true; // moved into tool_calls: no provider client sends invalid_tool_calls
    const args = jsonObject(call.args) ?? {};
    add("invalid", position, { ...call, args }, invalidCallResult(call.name ?? "", call.error));
  });
  const raw = message.additional_kwargs?.tool_calls;
  if (valid.length === 0 && invalid.length === 0 && Array.isArray(raw)) {
    raw.forEach((entry: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }, position) => {
      changed = true; // moved into tool_calls, so providers that ignore the raw payload see the call too
      const args = jsonObject(entry?.function?.arguments) ?? {};
      add("raw", position, { id: entry?.id, name: entry?.function?.name, args }, INTERRUPTED_TOOL_RESULT);
    });
  }
  return { calls, changed };
}

/** A copy of `message` whose tool calls (and the raw provider payload, if any) are exactly `calls`. */
function withCalls(message: AIMessage, calls: RequestToolCall[]): AIMessage {
  const additional = { ...message.additional_kwargs };
  if (additional.tool_calls !== undefined) {
    additional.tool_calls = calls.map((call) => ({
      id: call.id,
      type: "function" as const,
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }));
  }
  return copyAIMessage(message, {
    additional_kwargs: additional,
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.args, type: "tool_call" as const })),
    invalid_tool_calls: [],
  });
}

/**
 * Returns the messages with every AI tool call immediately followed by its ToolMessage: results are moved
 * back next to their call (past any human messages inserted in between), calls without a result get a
 * placeholder error ToolMessage, and ToolMessages without a matching call are dropped. Results are
 * matched in order of occurrence, so a tool-call id reused in a later turn pairs with the right call.
 * Returns the input array itself when nothing needed fixing.
 *
 * @example
 * const fixed = patchDanglingToolCalls([human, aiWithTwoCalls, toolResultForFirstCall]);
 * // → [human, aiWithTwoCalls, toolResultForFirstCall, placeholderForSecondCall]
 */
export function patchDanglingToolCalls(input: BaseMessage[]): BaseMessage[] {
  const plans = new Map<number, { calls: RequestToolCall[]; changed: boolean }>();
  input.forEach((message, index) => {
    if (isAIMessage(message)) plans.set(index, requestCalls(message, index));
  });
  const messages = pairEmptyResultIds(input, plans);
  const matches = matchToolResults(messages, (_, index) => plans.get(index)!.calls.map((call) => call.id));
  const consumed = new Set([...matches.values()].flat().filter((k): k is number => k !== undefined));

  const out: BaseMessage[] = [];
  let changed = false;
  messages.forEach((message, index) => {
    const matched = matches.get(index);
    if (matched !== undefined) {
      const plan = plans.get(index)!;
      out.push(plan.changed ? withCalls(message as AIMessage, plan.calls) : message);
      changed ||= plan.changed;
      plan.calls.forEach((call, position) => {
        const match = matched[position];
        if (match !== index + 1 + position) changed = true;
        const answer = match === undefined ? undefined : (messages[match] as ToolMessage);
        if (answer && call.nameMissing && blank(answer.name)) {
          changed = true;
          out.push(copyToolMessage(answer, { name: call.name }));
          return;
        }
        out.push(
          answer ??
            new ToolMessage({
              content: call.placeholder,
              tool_call_id: call.id,
              name: call.name,
              status: "error",
              id: `dangling-${index}-${position}`,
            }),
        );
      });
      return;
    }
    if (isToolMessage(message)) {
      if (!consumed.has(index)) changed = true; // orphan: its call is gone
      return;
    }
    out.push(message);
  });
  return changed || messages !== input ? out : input;
}

/** A copy of a ToolMessage with `changes` applied, every other field kept. */
function copyToolMessage(message: ToolMessage, changes: { name?: string; tool_call_id?: string }): ToolMessage {
  return new ToolMessage({
    id: message.id,
    content: message.content,
    name: message.name,
    status: message.status,
    artifact: message.artifact,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_call_id: message.tool_call_id,
    ...changes,
  });
}

/**
 * Threads saved before blank ids were replaced hold calls and results that all say "" (or only
 * whitespace). Results with a blank id answer the blank-id calls of the nearest earlier AI message in
 * order; they are given the same synthetic ids as those calls (copies, in the request only). Returns
 * `messages` itself when there are none.
 */
function pairEmptyResultIds(messages: BaseMessage[], plans: Map<number, { calls: RequestToolCall[] }>): BaseMessage[] {
  let out: BaseMessage[] | undefined;
  let pending: string[] = [];
  messages.forEach((message, index) => {
    if (isAIMessage(message)) {
      pending = plans
        .get(index)!
        .calls.filter((call) => call.idMissing)
        .map((call) => call.id);
    } else if (isToolMessage(message) && blank(message.tool_call_id) && pending.length > 0) {
      out ??= [...messages];
      out[index] = copyToolMessage(message, { tool_call_id: pending.shift()! });
    }
  });
  return out ?? messages;
}

/**
 * Chain slot 4: patches tool-call pairing in each model request (see {@link patchDanglingToolCalls}) and
 * renames tool-call ids in the model's answer that the thread already used (see
 * {@link renameRecurringToolCallIds}), so no call is skipped by the agent loop. It reads the delegation
 * ledger only to avoid ids of delegations whose messages were compacted away.
 *
 * @example
 * createAgent({ model, tools, middleware: [danglingToolCallMiddleware(), ...] });
 */
export function danglingToolCallMiddleware(options: { logger?: Logger } = {}) {
  return createMiddleware({
    name: "dangling-tool-call",
    stateSchema: threadStateSubset("delegations"),
    wrapModelCall: async (request, handler) => {
      const messages = patchDanglingToolCalls(request.messages);
      if (messages !== request.messages)
        options.logger?.debug(
          `patched tool-call pairing in the request (${request.messages.length} messages in, ${messages.length} sent)`,
        );
      const response = await handler(messages === request.messages ? request : { ...request, messages });
      if (!AIMessage.isInstance(response)) return response;
      const ledgerIds = (request.state.delegations ?? []).map((entry) => entry.id);
      return renameRecurringToolCallIds(response, usedToolCallIds(request.messages, ledgerIds));
    },
  });
}

/**
 * Equality of what a message shows, for React.memo. The SDK hands over new objects for every message
 * whenever a `values` event or a history refetch arrives (parsed JSON, same ids, same content), so
 * comparing by identity re-rendered every earlier message a dozen times per run. These compare what a
 * message view actually reads: id, kind, text, reasoning, files, tool calls with their results, cards.
 */
import type { Message } from "@langchain/langgraph-sdk";
import type { BatchProgress } from "../harness/batches";
import type { SubagentCard } from "../harness/subagents";
import { reasoningOf, shownText, type ToolCallView } from "./messages";

function filesOf(message: Message): unknown {
  return (message as { additional_kwargs?: { files?: unknown } }).additional_kwargs?.files;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** True when two messages render the same (same id and kind, same text, reasoning and files). */
export function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  return (
    a.id === b.id &&
    a.type === b.type &&
    shownText(a) === shownText(b) &&
    reasoningOf(a) === reasoningOf(b) &&
    sameJson(filesOf(a), filesOf(b))
  );
}

/** True when two lists of tool calls show the same calls, arguments and results. */
export function sameTools(a: readonly ToolCallView[], b: readonly ToolCallView[]): boolean {
  return (
    a.length === b.length &&
    a.every((view, index) => {
      const other = b[index]!;
      return (
        view.call.id === other.call.id &&
        view.call.name === other.call.name &&
        view.result?.text === other.result?.text &&
        view.result?.error === other.result?.error &&
        sameJson(view.call.args, other.call.args)
      );
    })
  );
}

/** True when two lists of batch progress show the same counts. */
export function sameProgress(a: readonly BatchProgress[] = [], b: readonly BatchProgress[] = []): boolean {
  return a.length === b.length && a.every((progress, index) => sameJson(progress, b[index]));
}

/** True when two lists of subagent cards show the same (cards rebuilt from state are new objects). */
export function sameCards(a: readonly SubagentCard[] = [], b: readonly SubagentCard[] = []): boolean {
  return a.length === b.length && a.every((card, index) => sameJson(card, b[index]));
}

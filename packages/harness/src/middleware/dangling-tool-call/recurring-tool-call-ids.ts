/**
 * Gives each new tool call an id the thread has not used before.
 *
 * Some providers number calls per response ("call_0", "call_1"), so ids recur across turns. langchain's
 * agent loop decides which calls still need to run by looking for any ToolMessage with the same id
 * anywhere in the history (ReactAgent's after-model router), so a recurring id is taken as already
 * answered and that call is silently never executed; the delegation ledger, keyed by id, would merge two
 * different `task` calls. Renaming a colliding id as soon as the model returns it (`call_0` becomes
 * `call_0_2`) keeps execution, pairing and the ledger exact. Providers accept any id in the history, as
 * long as calls and results agree.
 *
 * Some providers send no id at all (an empty or blank string). Every such call would share the id "", so its
 * result could never be paired with it again (each later request would carry an "interrupted"
 * placeholder instead of the real result) and a later empty-id call would look answered already. Each
 * blank id is therefore replaced by a fresh one as soon as the model returns it.
 */
import { randomUUID } from "node:crypto";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { copyAIMessage } from "../../messages/ai-message.js";
import { isAIMessage, isToolMessage } from "../../messages/tool-pairs.js";

/** Every tool-call id a thread has used: calls and results in `messages`, plus `extraIds` (e.g. the ledger's). */
export function usedToolCallIds(messages: readonly BaseMessage[], extraIds: Iterable<string> = []): Set<string> {
  const used = new Set(extraIds);
  for (const message of messages) {
    if (isToolMessage(message)) used.add(message.tool_call_id);
    else if (isAIMessage(message))
      for (const call of [...(message.tool_calls ?? []), ...(message.invalid_tool_calls ?? [])])
        if (call.id) used.add(call.id);
  }
  return used;
}

/** A tool-call id no provider will have sent: `call_` plus 24 random hex digits. */
export function freshToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
}

/**
 * Returns `response` with every tool-call id that is in `used`, or repeated within the response, renamed
 * to the first free `${id}_${n}` (n ≥ 2), and every empty or blank id replaced by a fresh one; the raw provider
 * payload follows. Returns `response` itself when no id collides or is empty.
 */
export function renameRecurringToolCallIds(response: AIMessage, used: ReadonlySet<string>): AIMessage {
  const taken = new Set(used);
  const renames = new Map<number, string>();
  const calls = [...(response.tool_calls ?? []), ...(response.invalid_tool_calls ?? [])];
  calls.forEach((call, index) => {
    if (!call.id?.trim()) {
      let fresh = freshToolCallId();
      while (taken.has(fresh)) fresh = freshToolCallId();
      taken.add(fresh);
      renames.set(index, fresh);
      return;
    }
    let id = call.id;
    for (let n = 2; taken.has(id); n += 1) id = `${call.id}_${n}`;
    taken.add(id);
    if (id !== call.id) renames.set(index, id);
  });
  if (renames.size === 0) return response;

  const valid = response.tool_calls ?? [];
  const rename = (id: string | undefined, index: number) => renames.get(index) ?? id;
  // The raw payload may interleave valid and invalid calls: rename its entries by id, in order.
  const pending = new Map<string, string[]>();
  // Calls without an id are keyed "" and take their new ids in order.
  calls.forEach((call, index) =>
    pending.set(call.id ?? "", [...(pending.get(call.id ?? "") ?? []), rename(call.id, index)!]),
  );
  const raw = response.additional_kwargs?.tool_calls as Array<{ id?: string }> | undefined;
  const additional = { ...response.additional_kwargs };
  if (Array.isArray(raw)) {
    additional.tool_calls = raw.map((entry) =>
      pending.get(entry.id ?? "")?.length ? { ...entry, id: pending.get(entry.id ?? "")!.shift() } : entry,
    ) as typeof additional.tool_calls;
  }
  return copyAIMessage(response, {
    additional_kwargs: additional,
    tool_calls: valid.map((call, index) => ({ ...call, id: rename(call.id, index) })),
    invalid_tool_calls: (response.invalid_tool_calls ?? []).map((call, index) => ({
      ...call,
      id: rename(call.id, valid.length + index),
    })),
  });
}

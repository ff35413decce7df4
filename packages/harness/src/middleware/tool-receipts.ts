/**
 * Tool receipts: every tool call gets a receipt stamped by the runtime, so what an agent says it did can
 * be checked against what actually ran (docs/subagents.md, "Verified delegation").
 *
 * `wrapToolCall` hashes the call's arguments and its result once the tool (and every inner wrapper) has
 * answered, numbers the receipt `r1`, `r2`, … per thread and puts it on the ToolMessage
 * (`additional_kwargs.tool_receipt`). `beforeModel` copies the receipts of the messages into the
 * `tool_receipts` channel, so they outlive compaction. With `showInRequest` (subagents, which must cite
 * them) `wrapModelCall` appends a one-line `[receipt r3: bash ok, 120 B]` to each tool result in the
 * request only; the checkpoint keeps the result as the tool wrote it, and the model never writes a receipt.
 */
import { createHash } from "node:crypto";
import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { ToolReceipt } from "../state/shapes.js";
import { threadStateSubset } from "../state/thread-state.js";

/** Where a ToolMessage carries its receipt. */
export const RECEIPT_KWARG = "tool_receipt";
/** How many hex characters of a SHA-256 a receipt keeps. */
const HASH_CHARS = 16;
/** Threads whose last issued number is remembered (oldest forgotten first). */
const MAX_TRACKED_THREADS = 1000;

/** Options of {@link toolReceiptsMiddleware}. */
export interface ToolReceiptsOptions {
  /** Append each result's receipt line to the request (not the checkpoint). Default false. */
  showInRequest?: boolean;
}

/** JSON with object keys sorted, so the same arguments always hash the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_CHARS);
}

/** The receipt of one finished call. `number` gives its id (`r<number>`). */
export function makeReceipt(
  number: number,
  call: { name: string; id?: string; args?: unknown },
  result: ToolMessage,
): ToolReceipt {
  const text = result.text;
  return {
    id: `r${number}`,
    tool: call.name,
    tool_call_id: call.id ?? result.tool_call_id,
    args_sha256: shortHash(canonicalJson(call.args ?? {})),
    result_sha256: shortHash(text),
    status: result.status === "error" ? "error" : "ok",
    result_bytes: Buffer.byteLength(text, "utf8"),
  };
}

/** The receipt a ToolMessage carries, when it is a well-formed one. */
export function receiptOf(message: BaseMessage): ToolReceipt | undefined {
  if (!ToolMessage.isInstance(message)) return undefined;
  const parsed = ToolReceipt.safeParse(message.additional_kwargs?.[RECEIPT_KWARG]);
  return parsed.success ? parsed.data : undefined;
}

/** Every receipt carried by `messages`, in order. */
export function receiptsInMessages(messages: readonly BaseMessage[]): ToolReceipt[] {
  return messages.flatMap((message) => receiptOf(message) ?? []);
}

/** The line the model sees after a result: `[receipt r3: bash ok, 120 B]`. */
export function receiptLine(receipt: ToolReceipt): string {
  return `[receipt ${receipt.id}: ${receipt.tool} ${receipt.status}, ${receipt.result_bytes} B]`;
}

/** The largest receipt number in `receipts` (0 for none). */
function highestNumber(receipts: readonly ToolReceipt[] | undefined): number {
  let highest = 0;
  for (const receipt of receipts ?? []) highest = Math.max(highest, receiptNumber(receipt));
  return highest;
}

/** The N of a receipt's id `rN` (0 for an id that is not one). */
function receiptNumber(receipt: ToolReceipt): number {
  const number = Number(receipt.id.slice(1));
  return Number.isInteger(number) ? number : 0;
}

function withLine(message: ToolMessage, receipt: ToolReceipt): ToolMessage {
  const line = receiptLine(receipt);
  const content =
    typeof message.content === "string"
      ? `${message.content}\n\n${line}`
      : [...message.content, { type: "text" as const, text: line }];
  return new ToolMessage({
    content,
    tool_call_id: message.tool_call_id,
    name: message.name,
    status: message.status,
    id: message.id,
    artifact: message.artifact,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/**
 * Builds the middleware. Put it outside tool-errors, so a tool's exception is already an error result
 * when it is stamped.
 *
 * @example
 * toolReceiptsMiddleware({ showInRequest: true }); // a subagent's chain
 */
export function toolReceiptsMiddleware(options: ToolReceiptsOptions = {}) {
  // Parallel calls of one step see the same state, so the last number issued per thread is kept here.
  const issued = new Map<string, number>();
  const nextNumber = (threadKey: string, stored: readonly ToolReceipt[] | undefined) => {
    const number = Math.max(highestNumber(stored), issued.get(threadKey) ?? 0) + 1;
    issued.delete(threadKey);
    issued.set(threadKey, number);
    if (issued.size > MAX_TRACKED_THREADS) issued.delete(issued.keys().next().value as string);
    return number;
  };
  const stamp = (
    message: ToolMessage,
    call: { name: string; id?: string; args?: unknown },
    threadKey: string,
    stored?: ToolReceipt[],
  ) => {
    if (receiptOf(message)) return;
    const receipt = makeReceipt(nextNumber(threadKey, stored), call, message);
    message.additional_kwargs = { ...message.additional_kwargs, [RECEIPT_KWARG]: receipt };
  };

  return createMiddleware({
    name: "tool-receipts",
    stateSchema: threadStateSubset("tool_receipts"),
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const runtime = request.runtime as { configurable?: { thread_id?: unknown } } | undefined;
      const threadKey = String(runtime?.configurable?.thread_id ?? "");
      const stored = (request.state as { tool_receipts?: ToolReceipt[] }).tool_receipts;
      if (ToolMessage.isInstance(result)) stamp(result, request.toolCall, threadKey, stored);
      else if (result instanceof Command) {
        const messages = (result.update as { messages?: unknown } | undefined)?.messages;
        if (Array.isArray(messages))
          for (const message of messages)
            if (ToolMessage.isInstance(message) && message.tool_call_id === request.toolCall.id)
              stamp(message, request.toolCall, threadKey, stored);
      }
      return result;
    },
    beforeModel: (state) => {
      // Only receipts newer than the channel's newest: the channel keeps the latest few, so an older
      // receipt still in the messages was dropped on purpose, not missed.
      const newest = highestNumber(state.tool_receipts);
      const fresh = receiptsInMessages(state.messages).filter((receipt) => receiptNumber(receipt) > newest);
      return fresh.length > 0 ? { tool_receipts: fresh } : undefined;
    },
    wrapModelCall: (request, handler) => {
      if (!options.showInRequest) return handler(request);
      const messages = request.messages.map((message) => {
        const receipt = receiptOf(message);
        return receipt ? withLine(message as ToolMessage, receipt) : message;
      });
      return handler({ ...request, messages });
    },
  });
}

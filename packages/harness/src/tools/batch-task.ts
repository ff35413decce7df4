/**
 * `batch_task(description, prompt_template, items | items_file, subagent_type, concurrency, max_attempts)`:
 * the same job over many items (up to 10,000), durably. The items become rows of a batch table in the
 * thread database (`batch/store.ts`); workers claim them with leases, retry failures up to
 * `max_attempts`, and record each result in the statement that marks the item done. When the server
 * dies mid-batch its crash recovery resumes the run, the tool is called again with the same call id,
 * finds its batch and goes on with the items not yet settled; nothing finished runs again.
 *
 * Each item is one model call (`subagent_type: "model"`, the default: cheap, no tools) or a full
 * subagent of a registered kind. Progress goes to the run's custom stream as `batch_progress` events;
 * the results go to a JSONL file in the thread's outputs (owner-checked like every artifact), which the
 * answer names with a summary. Full design: docs/batch.md.
 */
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { type StructuredToolInterface, type ToolRuntime, tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { createHash } from "node:crypto";
import { z } from "zod";
import { checkItems, checkTemplate, MAX_BATCH_ITEMS, MAX_ITEMS_FILE_BYTES, parseItemsFile } from "../batch/input.js";
import { resultLines, runBatch } from "../batch/runner.js";
import type { BatchCounts, BatchRecord, BatchStore } from "../batch/store.js";
import { readFileChecked, writeFileChecked } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { VIRTUAL_OUTPUTS } from "../sandbox/virtual-paths.js";
import type { SandboxState, ThreadDataState } from "../state/shapes.js";
import { runSubagent } from "../subagents/executor.js";
import type { SubagentRegistry } from "../subagents/registry.js";
import type { CreateSubagent } from "../subagents/types.js";
import { sandboxForRuntime } from "./sandbox-runtime.js";
import { ToolFailure } from "./sandbox-tool.js";
import { selectSubagentTools } from "./task.js";

/** Name of the batch tool. */
export const BATCH_TASK_TOOL_NAME = "batch_task";
/** The lightweight kind: each item is one call of the lead's model, without tools. */
export const BATCH_MODEL_KIND = "model";
/** Most items run at once. */
export const MAX_BATCH_CONCURRENCY = 16;
/** Most attempts per item. */
export const MAX_BATCH_ATTEMPTS = 10;

/** The custom stream event of a batch's progress. */
export interface BatchProgressEvent {
  type: "batch_progress";
  batch_id: string;
  tool_call_id: string;
  description: string;
  total: number;
  done: number;
  failed: number;
}

/** Options of {@link createBatchTaskTool}. */
export interface BatchTaskToolOptions {
  store: BatchStore;
  provider: SandboxProvider;
  /** The model the `model` kind calls (the lead's). */
  model: BaseChatModel;
  registry: SubagentRegistry;
  createSubagent: CreateSubagent;
  /** The lead's tools, read at each call; a subagent gets them as the `task` tool would give them. */
  parentTools: () => readonly StructuredToolInterface[];
  /** The run's user (the batch's owner); undefined for the home's local user. */
  owner?: string;
  /** Claim lease length (DEER_FLOW_RUN_LEASE_MS, default 30 s). */
  leaseMs: number;
  /** Extra receiver of progress events (tests, the CLI). */
  emit?: (event: BatchProgressEvent) => void;
}

const BatchArgs = z.object({
  description: z.string().describe("A short label for the batch (3 to 5 words), shown to the user while it runs."),
  prompt_template: z
    .string()
    .optional()
    .describe(
      "The prompt each item gets, with {item} where the item goes ({item.field} for a field of an object or CSV row). Omit it when every item is already a complete prompt.",
    ),
  items: z
    .array(z.unknown())
    .optional()
    .describe("The items, inline (strings or JSON objects). For many items write them to a file and use items_file."),
  items_file: z
    .string()
    .optional()
    .describe(
      "A file in the sandbox holding the items: .jsonl (one JSON value per line), .csv (header row, one item per row) or .txt (one item per line).",
    ),
  subagent_type: z
    .string()
    .optional()
    .describe(
      `"${BATCH_MODEL_KIND}" (default): each item is one model call without tools, for extraction, classification, summaries. Or a subagent kind from the task tool, when each item needs tools.`,
    ),
  concurrency: z
    .number()
    .int()
    .optional()
    .describe(`How many items run at once, 1 to ${MAX_BATCH_CONCURRENCY} (default 4).`),
  max_attempts: z
    .number()
    .int()
    .optional()
    .describe(`Attempts per item before it is recorded as failed, 1 to ${MAX_BATCH_ATTEMPTS} (default 3).`),
});

type Args = z.infer<typeof BatchArgs>;

/**
 * Creates the `batch_task` tool.
 *
 * @example
 * const batch = createBatchTaskTool({ store, provider, model, registry, createSubagent, parentTools: () => tools, leaseMs: 30_000 });
 */
export function createBatchTaskTool(options: BatchTaskToolOptions) {
  return tool(async (args: Args, runtime: ToolRuntime) => callBatch(options, args, runtime), {
    name: BATCH_TASK_TOOL_NAME,
    description: `Run one job over many items (up to ${MAX_BATCH_ITEMS}) and get every result in a JSONL file in /mnt/user-data/outputs. Each item runs on its own, several at once, with retries; the batch survives a server restart without redoing finished items. Use it instead of many task calls when the same instructions apply to each item. Read the results file (or parts of it) afterwards; the answer gives counts and its path.`,
    schema: BatchArgs,
  });
}

async function callBatch(options: BatchTaskToolOptions, args: Args, runtime: ToolRuntime) {
  const toolCallId = runtime.toolCallId ?? runtime.toolCall?.id ?? "";
  const fail = (error: string) =>
    new ToolMessage({
      name: BATCH_TASK_TOOL_NAME,
      tool_call_id: toolCallId,
      content: `Error: ${error}`,
      status: "error",
    });
  const threadId = runtime.configurable?.thread_id ?? runtime.config?.configurable?.thread_id;
  if (typeof threadId !== "string" || !toolCallId)
    return fail("this run has no thread id or tool call id, so the batch cannot be recorded.");

  let batch = await options.store.find(threadId, toolCallId);
  if (batch && batch.owner !== (options.owner ?? null)) return fail("this batch belongs to another user.");
  if (!batch) {
    const created = await createBatch(options, args, runtime, threadId, toolCallId);
    if (typeof created === "string") return fail(created);
    batch = created;
  }

  const kind = batch.subagentType;
  const type = kind === BATCH_MODEL_KIND ? undefined : options.registry.get(kind);
  if (kind !== BATCH_MODEL_KIND && type === undefined) return fail(options.registry.unknownTypeMessage(kind));
  const state = (runtime.state ?? {}) as { sandbox?: SandboxState | null; thread_data?: ThreadDataState | null };
  const writer = runtime.writer ?? (runtime.config as { writer?: (chunk: unknown) => void } | undefined)?.writer;
  const signal = runtime.signal ?? runtime.config?.signal;
  const record = batch;
  const emit = (counts: BatchCounts) => {
    const event: BatchProgressEvent = {
      type: "batch_progress",
      batch_id: record.batchId,
      tool_call_id: toolCallId,
      description: record.description,
      total: counts.total,
      done: counts.done,
      failed: counts.failed,
    };
    writer?.(event);
    options.emit?.(event);
  };
  const runItem = async (prompt: string, itemSignal: AbortSignal, index: string): Promise<string> => {
    if (type === undefined) return callModel(options.model, prompt, itemSignal);
    const result = await runSubagent({
      taskId: `${toolCallId}#${index}`,
      description: `${record.description} #${index}`,
      prompt,
      type,
      tools: selectSubagentTools(
        options.parentTools().filter((candidate) => candidate.name !== BATCH_TASK_TOOL_NAME),
        type,
      ),
      createSubagent: options.createSubagent,
      parentState: { sandbox: state.sandbox, thread_data: state.thread_data },
      parentThreadId: threadId,
      timeoutSeconds: type.timeoutSeconds ?? 1800,
      signal: itemSignal,
    });
    if (result.status !== "completed") throw new Error(result.error ?? `the subagent ended ${result.status}`);
    return result.result ?? "";
  };

  let started = 0;
  const outcome = await runBatch({
    store: options.store,
    batch: record,
    leaseMs: options.leaseMs,
    signal,
    onProgress: emit,
    runItem: (prompt, itemSignal) => runItem(prompt, itemSignal, String(started++)),
  });
  if (outcome.cancelled) {
    return fail(
      `the batch was stopped with ${outcome.counts.done} of ${outcome.counts.total} items done; the run was cancelled.`,
    );
  }
  const written = await writeResults(
    options.provider,
    runtime,
    record,
    await resultLines(options.store, record.batchId),
  );
  if (written !== null) return fail(written);
  await options.store.finish(record.batchId, Date.now());
  const { done, failed, total } = outcome.counts;
  const content =
    `Batch "${record.description}" finished: ${done} of ${total} items done, ${failed} failed. ` +
    `Results (one JSON line per item: index, item, status, attempts, result or error): ${record.outputPath}`;
  return new Command({
    update: {
      artifacts: [record.outputPath],
      messages: [
        new ToolMessage({
          name: BATCH_TASK_TOOL_NAME,
          tool_call_id: toolCallId,
          content,
          status: failed === total ? "error" : "success",
          additional_kwargs: { batch: { batch_id: record.batchId, total, done, failed, path: record.outputPath } },
        }),
      ],
    },
  });
}

/** Checks the call and records the batch; a string is what was wrong. */
async function createBatch(
  options: BatchTaskToolOptions,
  args: Args,
  runtime: ToolRuntime,
  threadId: string,
  toolCallId: string,
): Promise<BatchRecord | string> {
  const kind = args.subagent_type?.trim() || BATCH_MODEL_KIND;
  if (kind !== BATCH_MODEL_KIND && options.registry.get(kind) === undefined)
    return `${options.registry.unknownTypeMessage(kind)} Or use "${BATCH_MODEL_KIND}" for one model call per item.`;
  const concurrency = args.concurrency ?? 4;
  if (concurrency < 1 || concurrency > MAX_BATCH_CONCURRENCY)
    return `concurrency is ${concurrency}; it must be 1 to ${MAX_BATCH_CONCURRENCY}.`;
  const maxAttempts = args.max_attempts ?? 3;
  if (maxAttempts < 1 || maxAttempts > MAX_BATCH_ATTEMPTS)
    return `max_attempts is ${maxAttempts}; it must be 1 to ${MAX_BATCH_ATTEMPTS}.`;
  if (!args.description.trim()) return "description is empty. Give the batch a short label.";
  if ((args.items === undefined) === (args.items_file === undefined || args.items_file === ""))
    return "give the items either inline in `items` or as a file in `items_file`, not both and not neither.";
  const items =
    args.items !== undefined ? checkItems(args.items, "items") : await readItems(options, runtime, args.items_file!);
  if (!items.ok) return items.error;
  const template = args.prompt_template ?? null;
  const bad = checkTemplate(template, items.items);
  if (bad) return bad;
  const batchId = createHash("sha256").update(`${threadId}\n${toolCallId}`).digest("hex").slice(0, 16);
  const { batch } = await options.store.open({
    batchId,
    threadId,
    toolCallId,
    owner: options.owner ?? null,
    description: args.description.trim().slice(0, 200),
    template,
    subagentType: kind,
    concurrency,
    maxAttempts,
    outputPath: `${VIRTUAL_OUTPUTS}/batch-${slug(args.description)}-${batchId.slice(0, 8)}.jsonl`,
    items: items.items,
  });
  return batch;
}

async function readItems(options: BatchTaskToolOptions, runtime: ToolRuntime, file: string) {
  const sandbox = sandboxForRuntime(options.provider, runtime);
  if (sandbox instanceof ToolFailure) return { ok: false as const, error: sandbox.error };
  const target = sandbox.policy.resolve(file, "read");
  if (!target.ok) return { ok: false as const, error: target.error };
  try {
    const { data, size } = await readFileChecked(sandbox.policy, target, MAX_ITEMS_FILE_BYTES);
    if (size > MAX_ITEMS_FILE_BYTES)
      return {
        ok: false as const,
        error: `${target.virtualPath} is ${size} bytes; an items file may have at most ${MAX_ITEMS_FILE_BYTES}. Split it into several batches.`,
      };
    return parseItemsFile(data.toString("utf8"), target.virtualPath);
  } catch (error) {
    return { ok: false as const, error: `${target.virtualPath} could not be read: ${(error as Error).message}` };
  }
}

/** Writes the results file (replacing any partial one); null on success, else what went wrong. */
async function writeResults(
  provider: SandboxProvider,
  runtime: ToolRuntime,
  batch: BatchRecord,
  text: string,
): Promise<string | null> {
  const sandbox = sandboxForRuntime(provider, runtime);
  if (sandbox instanceof ToolFailure) return sandbox.error;
  const target = sandbox.policy.resolve(batch.outputPath, "write");
  if (!target.ok) return target.error;
  try {
    await writeFileChecked(sandbox.policy, target, text, false);
    return null;
  } catch (error) {
    return `the results of the batch are recorded, but ${batch.outputPath} could not be written: ${(error as Error).message}.`;
  }
}

/** One model call outside the run's callbacks (its tokens are not the lead's stream); its text is the result. */
async function callModel(model: BaseChatModel, prompt: string, signal: AbortSignal): Promise<string> {
  const answer = await AsyncLocalStorageProviderSingleton.getInstance().run(undefined, () =>
    model.invoke([new HumanMessage(prompt)], { signal }),
  );
  const text = answer.text;
  if (!text.trim()) throw new Error("the model answered with no text");
  return text;
}

function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "items"
  );
}

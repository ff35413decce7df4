/**
 * The run request (`RunCreate`) at the trust boundary. Every field the official SDK (1.6 to 1.15) sends
 * is accepted; anything else is a 422 naming the field. DeerFlow's run options arrive in `context` (its
 * UI) or `config.configurable` (older clients): the known ones are type-checked and kept, the rest
 * (client-sent identities, `__` internals, UI-only hints such as `reasoning_effort`) are dropped, and
 * `recursion_limit` is clamped, so a request cannot reach into the graph's internals.
 */
import { DEFAULT_RECURSION_LIMIT } from "@deerflow/harness";
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import { check } from "../http/validate.js";
import type { RunKwargs } from "./types.js";

/** The stream modes the server produces. */
export const STREAM_MODES = [
  "values",
  "updates",
  "messages-tuple",
  "custom",
  "tasks",
  "checkpoints",
  "debug",
  "tools",
  "events",
] as const;
/** The highest recursion limit a client may ask for (DeerFlow's ceiling). */
export const MAX_RECURSION_LIMIT = 1000;

const StreamMode = z.enum(STREAM_MODES);
const Breakpoints = z.union([z.literal("*"), z.array(z.string())]).nullish();

/** `POST .../runs[/stream|/wait]` body. */
export const RunCreateSchema = z.strictObject({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  command: z
    .strictObject({ resume: z.unknown().optional(), update: z.unknown().optional(), goto: z.unknown().optional() })
    .nullish(),
  config: z
    .looseObject({
      tags: z.array(z.string()).optional(),
      recursion_limit: z.number().int().positive().optional(),
      configurable: z.record(z.string(), z.unknown()).optional(),
    })
    .nullish(),
  context: z.record(z.string(), z.unknown()).nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  stream_mode: z.union([StreamMode, z.array(StreamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  feedback_keys: z.array(z.string()).nullish(),
  interrupt_before: Breakpoints,
  interrupt_after: Breakpoints,
  checkpoint: z.looseObject({ checkpoint_id: z.string().optional(), checkpoint_ns: z.string().optional() }).nullish(),
  checkpoint_id: z.string().nullish(),
  webhook: z.string().nullish(),
  strict_resume: z.boolean().nullish(),
  multitask_strategy: z.enum(["reject", "enqueue", "interrupt", "rollback"]).nullish(),
  on_completion: z.enum(["delete", "keep"]).nullish(),
  on_disconnect: z.enum(["cancel", "continue"]).nullish(),
  after_seconds: z.number().nonnegative().nullish(),
  if_not_exists: z.enum(["create", "reject"]).nullish(),
  checkpoint_during: z.boolean().nullish(),
  durability: z.enum(["exit", "async", "sync"]).nullish(),
  langsmith_tracer: z.unknown().optional(),
});
export type RunCreate = z.infer<typeof RunCreateSchema>;

/** DeerFlow's run options and their types; anything else in `context`/`configurable` is dropped. */
const RunOptionsSchema = z.object({
  model_name: z.string().min(1).optional(),
  thinking_enabled: z.boolean().optional(),
  is_plan_mode: z.boolean().optional(),
  subagent_enabled: z.boolean().optional(),
  max_concurrent_subagents: z.number().int().positive().optional(),
  agent_name: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, "use letters, digits and '-' only")
    .optional(),
  disable_clarification: z.boolean().optional(),
  is_bootstrap: z.boolean().optional(),
});
const RUN_OPTION_KEYS = Object.keys(RunOptionsSchema.shape);

/** The run options of a request: `config.configurable` first, `context` (DeerFlow's UI) on top, then the assistant's. */
export function runOptionsOf(request: RunCreate, assistantContext: Record<string, unknown>): Record<string, unknown> {
  const pick = (source: Record<string, unknown> | null | undefined) =>
    Object.fromEntries(
      Object.entries(source ?? {}).filter(
        ([key, value]) => RUN_OPTION_KEYS.includes(key) && value !== null && value !== undefined,
      ),
    );
  const merged = { ...pick(assistantContext), ...pick(request.config?.configurable), ...pick(request.context) };
  return check(RunOptionsSchema, merged, "body") as Record<string, unknown>;
}

/** The stored kwargs of a validated request. */
export function runKwargs(
  request: RunCreate,
  options: { runOptions: Record<string, unknown>; temporary: boolean },
): RunKwargs {
  const modes =
    request.stream_mode === undefined || request.stream_mode === null
      ? ["values"]
      : Array.isArray(request.stream_mode)
        ? request.stream_mode
        : [request.stream_mode];
  if (
    request.input !== undefined &&
    request.input !== null &&
    (typeof request.input !== "object" || Array.isArray(request.input))
  ) {
    throw new HttpError(422, 'Invalid body field "input": must be an object such as {"messages": [...]} or null.');
  }
  const limit = request.config?.recursion_limit ?? DEFAULT_RECURSION_LIMIT;
  return {
    input: request.input ?? null,
    command: request.command ?? null,
    run_options: options.runOptions,
    configurable: {},
    recursion_limit: Math.min(MAX_RECURSION_LIMIT, Math.max(1, limit)),
    tags: request.config?.tags ?? [],
    stream_mode: [...new Set(modes)],
    stream_subgraphs: request.stream_subgraphs ?? false,
    on_disconnect: request.on_disconnect ?? "continue",
    checkpoint_id:
      request.checkpoint?.checkpoint_id ??
      request.checkpoint_id ??
      (request.config?.configurable?.checkpoint_id as string | undefined) ??
      null,
    checkpoint_ns: request.checkpoint?.checkpoint_ns ?? "",
    interrupt_before: request.interrupt_before ?? null,
    interrupt_after: request.interrupt_after ?? null,
    temporary: options.temporary,
    on_completion: request.on_completion ?? "delete",
    ...(request.webhook ? { webhook: request.webhook } : {}),
  };
}

/**
 * The custom stream events a run writes (`streamMode: "custom"`), as one union a CLI, server or UI can
 * switch on by `type` instead of re-declaring the payloads: the `task_*` progress of delegations (zod
 * schemas, so a reader can validate what it got) and the `llm_retry` notice before a model call is retried.
 */
import type { LlmRetryEvent } from "./middleware/model-retry.js";
import type { TaskEvent } from "./subagents/events.js";

export type { LlmRetryEvent } from "./middleware/model-retry.js";
export { SubagentStepSummary, SubagentTokenUsage, TaskEvent } from "./subagents/events.js";

/** Every custom stream event the harness emits, discriminated by `type`. */
export type HarnessStreamEvent = TaskEvent | LlmRetryEvent;

/**
 * The one ThreadState of the lead agent: every channel a middleware, tool or client may read, each with
 * the reducer from `reducers.ts`.
 *
 * langchain JS shows a middleware's hooks only `messages` plus the fields that middleware declares, so a
 * middleware that needs, say, `thread_data` declares it again in its own schema. `threadStateFields`
 * holds each channel definition once so those declarations share the exact same reducer.
 */
import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import {
  type DelegationEntry,
  type SandboxState,
  type SkillEntry,
  type ThreadDataState,
  type TodoItem,
  type UploadedFile,
  type ViewedImage,
  mergeArtifacts,
  mergeDelegations,
  mergeSandbox,
  mergeSkillContext,
  mergeTodos,
  mergeViewedImages,
} from "./reducers.js";

const sandboxSchema = z.object({ sandbox_id: z.string().nullable().optional() });
const threadDataSchema = z.object({ workspace_path: z.string(), uploads_path: z.string(), outputs_path: z.string() });
const todoSchema = z.object({ content: z.string(), status: z.enum(["pending", "in_progress", "completed"]) });
const uploadedFileSchema = z.object({ filename: z.string(), size: z.number(), path: z.string(), virtual_path: z.string() });
const viewedImageSchema = z.object({ mime_type: z.string(), size: z.number(), actual_path: z.string() });
const delegationSchema = z.object({
  id: z.string(),
  run_id: z.string().optional(),
  description: z.string(),
  subagent_type: z.string(),
  status: z.enum(["in_progress", "completed", "failed", "cancelled", "timed_out", "polling_timed_out"]),
  result_brief: z.string().optional(),
  result_sha256: z.string().optional(),
  result_ref: z.string().optional(),
  stop_reason: z.enum(["token_capped", "turn_capped", "loop_capped"]).optional(),
  created_at: z.string(),
});
const skillEntrySchema = z.object({ name: z.string(), path: z.string(), description: z.string(), loaded_at: z.number() });

/** Channel definitions of ThreadState, shared by the agent schema and every middleware schema. */
export const threadStateFields = {
  sandbox: new ReducedValue(sandboxSchema.nullable().default(null), {
    reducer: (current: SandboxState | null, next: SandboxState | null) => mergeSandbox(current, next),
  }),
  thread_data: threadDataSchema.nullable().optional(),
  title: z.string().nullable().optional(),
  artifacts: new ReducedValue(z.array(z.string()).default(() => []), {
    reducer: (current: string[], next: string[]) => mergeArtifacts(current, next),
  }),
  todos: new ReducedValue(z.array(todoSchema).nullable().default(null), {
    reducer: (current: TodoItem[] | null, next: TodoItem[] | null) => mergeTodos(current, next),
  }),
  uploaded_files: z.array(uploadedFileSchema).nullable().optional(),
  viewed_images: new ReducedValue(z.record(z.string(), viewedImageSchema).default(() => ({})), {
    reducer: (current: Record<string, ViewedImage>, next: Record<string, ViewedImage>) => mergeViewedImages(current, next),
  }),
  summary_text: z.string().nullable().optional(),
  delegations: new ReducedValue(z.array(delegationSchema).default(() => []), {
    reducer: (current: DelegationEntry[], next: DelegationEntry[]) => mergeDelegations(current, next),
  }),
  skill_context: new ReducedValue(z.array(skillEntrySchema).default(() => []), {
    reducer: (current: SkillEntry[], next: SkillEntry[]) => mergeSkillContext(current, next),
  }),
};

/** The agent-level state schema passed to `createAgent`. */
export const ThreadStateSchema = new StateSchema(threadStateFields);

/** The values of a thread's state, as `getState()` and `invoke()` return them (besides `messages`). */
export interface ThreadState {
  sandbox: SandboxState | null;
  thread_data?: ThreadDataState | null;
  title?: string | null;
  artifacts: string[];
  todos: TodoItem[] | null;
  uploaded_files?: UploadedFile[] | null;
  viewed_images: Record<string, ViewedImage>;
  summary_text?: string | null;
  delegations: DelegationEntry[];
  skill_context: SkillEntry[];
}

/** Picks channels from `threadStateFields` for a middleware's own `stateSchema`. */
export function threadStateSubset<K extends keyof typeof threadStateFields>(...keys: K[]): StateSchema<Pick<typeof threadStateFields, K>> {
  const fields = Object.fromEntries(keys.map((key) => [key, threadStateFields[key]])) as Pick<typeof threadStateFields, K>;
  return new StateSchema(fields);
}

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
  mergeAcceptanceGaps,
  mergeArtifacts,
  mergeDelegations,
  mergeGoal,
  mergeSandbox,
  mergeSkillContext,
  mergeTaskNotes,
  mergeTodos,
  mergeToolReceipts,
  mergeViewedImages,
} from "./reducers.js";
import {
  AcceptanceGap,
  DelegationEntry,
  GoalState,
  SandboxState,
  SkillEntry,
  TaskNote,
  ThreadDataState,
  TodoItem,
  ToolReceipt,
  UploadedFile,
  ViewedImage,
} from "./shapes.js";

/** Channel definitions of ThreadState, shared by the agent schema and every middleware schema. */
export const threadStateFields = {
  sandbox: new ReducedValue(SandboxState.nullable().default(null), {
    reducer: (current: SandboxState | null, next: SandboxState | null) => mergeSandbox(current, next),
  }),
  thread_data: ThreadDataState.nullable().optional(),
  title: z.string().nullable().optional(),
  artifacts: new ReducedValue(
    z.array(z.string()).default(() => []),
    {
      reducer: (current: string[], next: string[]) => mergeArtifacts(current, next),
    },
  ),
  todos: new ReducedValue(z.array(TodoItem).nullable().default(null), {
    reducer: (current: TodoItem[] | null, next: TodoItem[] | null) => mergeTodos(current, next),
  }),
  uploaded_files: z.array(UploadedFile).nullable().optional(),
  viewed_images: new ReducedValue(
    z.record(z.string(), ViewedImage).default(() => ({})),
    {
      reducer: (current: Record<string, ViewedImage>, next: Record<string, ViewedImage>) =>
        mergeViewedImages(current, next),
    },
  ),
  summary_text: z.string().nullable().optional(),
  delegations: new ReducedValue(
    z.array(DelegationEntry).default(() => []),
    {
      reducer: (current: DelegationEntry[], next: DelegationEntry[]) => mergeDelegations(current, next),
    },
  ),
  skill_context: new ReducedValue(
    z.array(SkillEntry).default(() => []),
    {
      reducer: (current: SkillEntry[], next: SkillEntry[]) => mergeSkillContext(current, next),
    },
  ),
  goal: new ReducedValue(GoalState.nullable().default(null), {
    reducer: (current: GoalState | null, next: GoalState | null | undefined) => mergeGoal(current, next),
  }),
  task_notes: new ReducedValue(
    z.array(TaskNote).default(() => []),
    {
      reducer: (current: TaskNote[], next: TaskNote[]) => mergeTaskNotes(current, next),
    },
  ),
  tool_receipts: new ReducedValue(
    z.array(ToolReceipt).default(() => []),
    {
      reducer: (current: ToolReceipt[], next: ToolReceipt[]) => mergeToolReceipts(current, next),
    },
  ),
  // Nullable so a client can clear the list (`acceptance_gaps: null`); the reducer stores [] for it.
  acceptance_gaps: new ReducedValue(
    z
      .array(AcceptanceGap)
      .nullable()
      .default(() => []),
    {
      reducer: (current: AcceptanceGap[] | null, next: AcceptanceGap[] | null) => mergeAcceptanceGaps(current, next),
    },
  ),
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
  /** The user's goal for the thread (`/goal`), shown to the model on every call; null when none. */
  goal: GoalState | null;
  /** The agent's own notes about the task (`task_note`), shown to the model on every call. */
  task_notes: TaskNote[];
  /** Runtime-stamped receipts of the thread's tool calls (`r1`, `r2`, …). */
  tool_receipts: ToolReceipt[];
  /** Delegated acceptance criteria still unmet or unverified; kept past compaction. */
  acceptance_gaps: AcceptanceGap[];
}

/** Picks channels from `threadStateFields` for a middleware's own `stateSchema`. */
export function threadStateSubset<K extends keyof typeof threadStateFields>(
  ...keys: K[]
): StateSchema<Pick<typeof threadStateFields, K>> {
  const fields = Object.fromEntries(keys.map((key) => [key, threadStateFields[key]])) as Pick<
    typeof threadStateFields,
    K
  >;
  return new StateSchema(fields);
}

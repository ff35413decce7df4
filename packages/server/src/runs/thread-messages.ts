/**
 * The messages between the HTTP thread and a run worker thread (runs/thread-pool.ts and runs/run-thread.ts).
 * The HTTP thread owns the event log, the quotas and the owner checks; a run thread asks for them here.
 */
import type { AppConfig } from "@deerflow/harness";
import type { CancelAction, RunRecord } from "./types.js";

/** What a run thread starts with (structured-cloned into it). */
export interface RunThreadData {
  config: AppConfig;
  home: string;
  env: Record<string, string | undefined>;
  /** The SQLite file of checkpoints, threads and runs. */
  file: string;
  agentCacheSize: number | undefined;
  maxConcurrentRuns: number;
  eventRetentionMs: number;
  /** Take the file's per-thread lease around each run (the HTTP process was given a lease). */
  threadLease: boolean;
}

/** Methods a run thread calls on the HTTP thread and awaits. */
export type RunThreadCall =
  | { method: "has"; args: [runId: string] }
  | { method: "ended"; args: [runId: string] }
  | { method: "threadAccess"; args: [threadId: string, userId: string | undefined] };

/** HTTP thread → run thread. */
export type ToRunThread =
  | { type: "notify" }
  | { type: "cancel"; runId: string; action: CancelAction }
  | { type: "reloadSkills" }
  | { type: "invalidate" }
  | { type: "drain"; graceMs: number }
  | { type: "reply"; id: number; value?: unknown; error?: string };

/** Run thread → HTTP thread. */
export type FromRunThread =
  | { type: "ready" }
  | { type: "failed"; message: string }
  | { type: "append"; runId: string; event: string; data: string }
  | { type: "end"; runId: string }
  | { type: "drop"; runId: string }
  | ({ type: "call"; id: number } & RunThreadCall)
  | { type: "active"; runIds: string[] }
  | { type: "tokens"; run: RunRecord; tokens: number }
  | { type: "log"; line: string }
  | { type: "notify" }
  | { type: "drained" }
  /** Several of the above, in order (what one turn of the thread's event loop sent). */
  | { type: "batch"; messages: FromRunThread[] };

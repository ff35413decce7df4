/**
 * One error family for the whole harness. Setup problems (bad config, unknown model, duplicate tool
 * names) throw one of these at construction time, before any model call, so a CLI or server can print
 * the message and exit without a stack trace. Failures during a run never throw into the agent loop:
 * tools turn them into ToolMessages the model can read.
 */

/** Every code a caller may branch on. */
export type HarnessErrorCode =
  | "config_invalid"
  | "config_not_found"
  | "model_unknown"
  | "model_unavailable"
  | "tool_conflict"
  | "sandbox_denied"
  | "sandbox_failed"
  | "thread_invalid"
  | "run_interrupted"
  | "upload_rejected"
  | "memory_invalid"
  | "memory_locked"
  | "thread_busy"
  | "compaction_unavailable"
  | "compaction_failed"
  | "storage_unusable"
  | "skill_rejected"
  | "agent_not_found"
  | "agent_exists";

/** Base class of every error the harness throws on purpose. `message` is written for the end user. */
export class HarnessError extends Error {
  readonly code: HarnessErrorCode;

  constructor(code: HarnessErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HarnessError";
    this.code = code;
  }
}

/** A config file (or config value passed in code) that cannot be used as it is. */
export class ConfigError extends HarnessError {
  constructor(
    message: string,
    options?: { cause?: unknown; code?: "config_invalid" | "config_not_found" | "model_unknown" },
  ) {
    super(options?.code ?? "config_invalid", message, options);
    this.name = "ConfigError";
  }
}

/** A path or command refused by the sandbox policy, or a sandbox that could not run a command. */
export class SandboxError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown; code?: "sandbox_denied" | "sandbox_failed" }) {
    super(options?.code ?? "sandbox_denied", message, options);
    this.name = "SandboxError";
  }
}

/** A model endpoint that failed (unreachable, 401, 429, 5xx): the run stops, saved state is kept. */
export class ModelError extends HarnessError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("model_unavailable", message, options);
    this.name = "ModelError";
  }
}

/** True for errors a CLI should print as a plain message (no stack trace). */
export function isHarnessError(error: unknown): error is HarnessError {
  return error instanceof HarnessError;
}

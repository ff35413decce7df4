/**
 * Defaults that both `config.yaml` and a factory called from code fall back to, stated once. The config
 * schema (`schema.ts`) uses them for absent keys, and the middleware, memory, tool and upload factories
 * use them for absent options, so `titleMiddleware({})` and a config without `title:` give the same
 * titles. Keys follow the config file's names. Plain values only: no imports, so any layer may read them.
 */

/** `title:` (title middleware). */
export const TITLE_DEFAULTS = Object.freeze({ max_words: 6, max_chars: 60 });

/** `loop_detection:` (loop-detection middleware). */
export const LOOP_DETECTION_DEFAULTS = Object.freeze({ warn_threshold: 3, hard_limit: 5, window_size: 20 });

/** `tool_progress:` identical failures in a row of one tool before a warning, and before it is stopped (DeerFlow: 3 and 3 + 2). */
export const TOOL_PROGRESS_DEFAULTS = Object.freeze({ warn_after: 3, stop_after: 5 });

/** `llm:` call deadline (chat models) and retry backoff (model-retry middleware). */
export const LLM_DEFAULTS = Object.freeze({
  timeout_seconds: 600,
  retry_base_delay_ms: 1000,
  retry_cap_delay_ms: 8000,
  retry_after_max_seconds: 60,
});

/** `memory:` (memory service and updater). */
export const MEMORY_DEFAULTS = Object.freeze({
  debounce_seconds: 30,
  max_facts: 100,
  fact_confidence_threshold: 0.7,
  max_injection_tokens: 2000,
  guaranteed_categories: Object.freeze(["correction"]) as readonly string[],
  guaranteed_token_budget: 500,
});

/** `subagents:` limits (subagent-limit middleware and the `task` tool). */
export const SUBAGENTS_DEFAULTS = Object.freeze({ max_concurrent: 3, max_total_per_run: 6, timeout_seconds: 1800 });

/** `subagents.queue:` the process-wide bound on running subagents (DeerFlow.ts's own; DeerFlow has none). */
export const SUBAGENT_QUEUE_DEFAULTS = Object.freeze({ max_running: 16, max_waiting: 64, wait_timeout_seconds: 600 });

/** `sandbox:` output and size limits of the sandbox tools (DeerFlow's). */
export const SANDBOX_LIMIT_DEFAULTS = Object.freeze({
  bash_output_max_chars: 20_000,
  read_file_output_max_chars: 50_000,
  ls_output_max_chars: 20_000,
  write_file_max_bytes: 80 * 1024,
  glob_max_results: 200,
  grep_max_results: 100,
});

/** `uploads:` limits. */
export const UPLOADS_DEFAULTS = Object.freeze({
  max_files: 10,
  max_file_size: 50 * 1024 * 1024,
  max_total_size: 100 * 1024 * 1024,
});

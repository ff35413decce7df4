/**
 * The shape of `config.yaml`, in DeerFlow's format, validated with zod at load time.
 *
 * Every section a later subsystem needs is declared here with its DeerFlow default, so the file format
 * stays stable while the subsystems land. Objects are strict: an unknown key is almost always a typo, and
 * silently ignoring it would leave the user wondering why a setting has no effect.
 */
import { z } from "zod";
import * as defaults from "./defaults.js";
import { supportsThinking } from "./thinking-support.js";
import { titleTemplateProblem } from "./title-template.js";

/** Spellings of `use:` we accept; DeerFlow's Python class paths map onto our providers. */
export const MODEL_PROVIDER_ALIASES: Readonly<Record<string, ModelProvider>> = {
  openai: "openai",
  anthropic: "anthropic",
  ollama: "ollama",
  demo: "demo",
  "langchain_openai:ChatOpenAI": "openai",
  "langchain_anthropic:ChatAnthropic": "anthropic",
  "langchain_ollama:ChatOllama": "ollama",
};
export type ModelProvider = "openai" | "anthropic" | "ollama" | "demo";

/** Longest duration any timer can wait: Node fires a `setTimeout` of 2^31 ms or more at once. */
export const MAX_DURATION_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A duration in seconds that a timer can wait (positive, under about 24.8 days). */
const Seconds = z
  .number()
  .positive()
  .max(
    MAX_DURATION_SECONDS,
    `must be at most ${MAX_DURATION_SECONDS} seconds (about 24 days): longer timers fire at once`,
  );

const ProviderName = z
  .string()
  .refine((value) => value in MODEL_PROVIDER_ALIASES, {
    message: `expected one of ${Object.keys(MODEL_PROVIDER_ALIASES).join(", ")}`,
  })
  .transform((value) => MODEL_PROVIDER_ALIASES[value] as ModelProvider);

/**
 * One entry under `models:`. `supports_thinking` is settled at load time (see `supportsThinking`), and
 * DeerFlow's `thinking:` settings shortcut is folded into `when_thinking_enabled.thinking`, as DeerFlow does.
 */
export const ModelEntry = z
  .strictObject({
    name: z.string().min(1),
    display_name: z.string().optional(),
    description: z.string().optional(),
    use: ProviderName,
    model: z.string().min(1).optional(),
    api_key: z.string().optional(),
    base_url: z.string().url().optional(),
    api_base: z.string().url().optional(),
    max_tokens: z.number().int().positive().optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_input_tokens: z.number().int().positive().optional(),
    timeout: Seconds.optional(),
    max_retries: z.number().int().min(0).max(20).optional(),
    supports_thinking: z.boolean().optional(),
    /** `true`/`false` says whether the model thinks; a mapping is DeerFlow's `when_thinking_enabled.thinking` shortcut. */
    thinking: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
    supports_vision: z.boolean().default(false),
    when_thinking_enabled: z.record(z.string(), z.unknown()).optional(),
    when_thinking_disabled: z.record(z.string(), z.unknown()).optional(),
  })
  .transform(({ thinking, ...entry }) => {
    const settings = typeof thinking === "object" ? thinking : undefined;
    const previous = entry.when_thinking_enabled?.thinking;
    return {
      ...entry,
      supports_thinking: supportsThinking({ ...entry, thinking }),
      ...(settings
        ? {
            when_thinking_enabled: {
              ...entry.when_thinking_enabled,
              thinking: { ...(typeof previous === "object" ? previous : {}), ...settings },
            },
          }
        : {}),
    };
  });
export type ModelEntry = z.infer<typeof ModelEntry>;

/** A summarization trigger or keep threshold. */
export const ContextSize = z.strictObject({
  type: z.enum(["tokens", "messages", "fraction"]),
  value: z.number().positive(),
});
export type ContextSize = z.infer<typeof ContextSize>;

export const SummarizationConfig = z.strictObject({
  enabled: z.boolean().default(true),
  model_name: z.string().nullable().default(null),
  trigger: z
    .union([ContextSize, z.array(ContextSize)])
    .transform((value) => (Array.isArray(value) ? value : [value]))
    .default([
      { type: "fraction", value: 0.8 },
      { type: "messages", value: 50 },
    ]),
  keep: ContextSize.default({ type: "messages", value: 20 }),
  trim_tokens_to_summarize: z.number().int().positive().nullable().default(4000),
  summary_prompt: z.string().nullable().default(null),
  skill_file_read_tool_names: z.array(z.string()).default(["read_file", "read", "view", "cat"]),
});

export const MemoryConfig = z.strictObject({
  enabled: z.boolean().default(true),
  injection_enabled: z.boolean().default(true),
  storage_path: z.string().default(""),
  debounce_seconds: z
    .number()
    .min(0)
    .max(
      MAX_DURATION_SECONDS,
      `must be at most ${MAX_DURATION_SECONDS} seconds (about 24 days): longer timers fire at once`,
    )
    .default(defaults.MEMORY_DEFAULTS.debounce_seconds),
  model_name: z.string().nullable().default(null),
  max_facts: z.number().int().positive().default(defaults.MEMORY_DEFAULTS.max_facts),
  fact_confidence_threshold: z.number().min(0).max(1).default(defaults.MEMORY_DEFAULTS.fact_confidence_threshold),
  max_injection_tokens: z.number().int().positive().default(defaults.MEMORY_DEFAULTS.max_injection_tokens),
  guaranteed_categories: z
    .array(z.string().trim().min(1, "must not be empty: name a fact category such as correction or preference"))
    .default([...defaults.MEMORY_DEFAULTS.guaranteed_categories]),
  guaranteed_token_budget: z
    .number()
    .int()
    .min(50, "must be at least 50 tokens, or leave guaranteed_categories empty to turn the guarantee off")
    .max(2000)
    .default(defaults.MEMORY_DEFAULTS.guaranteed_token_budget),
});

export const TitleConfig = z.strictObject({
  enabled: z.boolean().default(true),
  max_words: z.number().int().min(1).max(20).default(defaults.TITLE_DEFAULTS.max_words),
  max_chars: z.number().int().min(10).max(200).default(defaults.TITLE_DEFAULTS.max_chars),
  model_name: z.string().nullable().default(null),
  prompt_template: z
    .string()
    .nullable()
    .default(null)
    .superRefine((template, context) => {
      const problem = template === null ? undefined : titleTemplateProblem(template);
      if (problem) context.addIssue({ code: "custom", message: problem });
    }),
});

/** `suggestions:` follow-up questions offered under the last answer (DeerFlow's `suggestions` section). */
export const SuggestionsConfig = z.strictObject({
  enabled: z.boolean().default(true),
  max_suggestions: z.number().int().min(1).max(5).default(3),
  /** The model that writes them; null: the model the request names, else the default model. */
  model_name: z.string().nullable().default(null),
});

/** One `sandbox.mounts` entry: a host directory shown in the sandbox (checked when the sandbox is built). */
export const SandboxMountConfig = z.strictObject({
  host_path: z.string().min(1),
  container_path: z.string().min(1),
  read_only: z.boolean().default(false),
});

export const SandboxConfig = z.strictObject({
  use: z.enum(["auto", "bwrap", "local"]).default("auto"),
  allow_host_bash: z.boolean().default(false),
  /** Refuse write_file / str_replace on an existing file the model has not read at its current version. */
  read_before_write: z.boolean().default(true),
  bash_command_timeout: Seconds.default(600),
  bash_output_max_chars: z.number().int().min(0).default(defaults.SANDBOX_LIMIT_DEFAULTS.bash_output_max_chars),
  read_file_output_max_chars: z
    .number()
    .int()
    .min(0)
    .default(defaults.SANDBOX_LIMIT_DEFAULTS.read_file_output_max_chars),
  ls_output_max_chars: z.number().int().min(0).default(defaults.SANDBOX_LIMIT_DEFAULTS.ls_output_max_chars),
  write_file_max_bytes: z.number().int().min(0).default(defaults.SANDBOX_LIMIT_DEFAULTS.write_file_max_bytes),
  glob_max_results: z.number().int().positive().max(1000).default(defaults.SANDBOX_LIMIT_DEFAULTS.glob_max_results),
  grep_max_results: z.number().int().positive().max(500).default(defaults.SANDBOX_LIMIT_DEFAULTS.grep_max_results),
  /** Host directories shown in the sandbox (local and bubblewrap); `read_only` ones refuse writes. */
  mounts: z.array(SandboxMountConfig).default([]),
});

export const SkillsConfig = z.strictObject({
  path: z.string().default("skills"),
  container_path: z.string().default("/mnt/skills"),
});

export const UploadsConfig = z.strictObject({
  max_files: z.number().int().positive().default(defaults.UPLOADS_DEFAULTS.max_files),
  max_file_size: z.number().int().positive().default(defaults.UPLOADS_DEFAULTS.max_file_size),
  max_total_size: z.number().int().positive().default(defaults.UPLOADS_DEFAULTS.max_total_size),
});

/**
 * Tokens (input + output) one subagent run may use; at the limit its run ends with `token_capped`. On by
 * default, as DeerFlow's cost backstop (unlike the lead's `token_budget`); a kind's own budget also
 * defaults to enabled, so writing one is enough to turn it on.
 */
export const SubagentTokenBudgetConfig = z.strictObject({
  enabled: z.boolean().default(true),
  max_tokens: z.number().int().min(1000).default(2_000_000),
});

/**
 * `subagents.queue`: the process-wide bound on running subagents (subagents/queue.ts). Past
 * `max_running`, tasks wait in FIFO order, at most `max_waiting` of them for `wait_timeout_seconds`; when
 * the line is full `reject_policy` turns away the newcomer (`reject_new`) or the longest waiter (`drop_oldest`).
 */
export const SubagentQueueConfig = z.strictObject({
  max_running: z.number().int().min(1).max(1000).default(defaults.SUBAGENT_QUEUE_DEFAULTS.max_running),
  max_waiting: z.number().int().min(0).max(10_000).default(defaults.SUBAGENT_QUEUE_DEFAULTS.max_waiting),
  wait_timeout_seconds: Seconds.default(defaults.SUBAGENT_QUEUE_DEFAULTS.wait_timeout_seconds),
  reject_policy: z.enum(["reject_new", "drop_oldest"]).default("reject_new"),
});

export const SubagentTypeConfig = z.strictObject({
  description: z.string().optional(),
  system_prompt: z.string().optional(),
  tools: z.array(z.string()).nullable().optional(),
  disallowed_tools: z.array(z.string()).optional(),
  model: z.string().optional(),
  max_turns: z.number().int().positive().optional(),
  timeout_seconds: Seconds.optional(),
  token_budget: SubagentTokenBudgetConfig.optional(),
});

export const SubagentsConfig = z.strictObject({
  enabled: z.boolean().default(false),
  max_concurrent: z.number().int().positive().default(defaults.SUBAGENTS_DEFAULTS.max_concurrent),
  timeout_seconds: Seconds.default(defaults.SUBAGENTS_DEFAULTS.timeout_seconds),
  max_turns: z.number().int().positive().nullable().default(null),
  max_total_per_run: z.number().int().min(1).max(50).default(defaults.SUBAGENTS_DEFAULTS.max_total_per_run),
  token_budget: SubagentTokenBudgetConfig.prefault({}),
  queue: SubagentQueueConfig.prefault({}),
  agents: z.record(z.string(), SubagentTypeConfig).default({}),
  custom_agents: z.record(z.string(), SubagentTypeConfig).default({}),
});

export const LoopDetectionConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    warn_threshold: z.number().int().min(2).max(100).default(defaults.LOOP_DETECTION_DEFAULTS.warn_threshold),
    hard_limit: z.number().int().min(2).max(100).default(defaults.LOOP_DETECTION_DEFAULTS.hard_limit),
    window_size: z.number().int().min(2).max(200).default(defaults.LOOP_DETECTION_DEFAULTS.window_size),
  })
  .refine((value) => value.hard_limit >= value.warn_threshold, {
    message: "hard_limit must be at least warn_threshold",
    path: ["hard_limit"],
  });

export const ToolProgressConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    warn_after: z.number().int().min(1).max(100).default(defaults.TOOL_PROGRESS_DEFAULTS.warn_after),
    stop_after: z.number().int().min(1).max(100).default(defaults.TOOL_PROGRESS_DEFAULTS.stop_after),
  })
  .refine((value) => value.stop_after >= value.warn_after, {
    message: "stop_after must be at least warn_after",
    path: ["stop_after"],
  });

export const TokenBudgetConfig = z.strictObject({
  enabled: z.boolean().default(false),
  max_tokens: z.number().int().min(1000).default(200000),
});

export const ToolEntry = z.strictObject({
  name: z.string().min(1),
  group: z.string().optional(),
  use: z.string().min(1),
});

/** One MCP server (`mcp/server-spec.ts` turns it into a connection spec). Transport: stdio with `command`, http when only `url` is given. */
export const McpServerEntry = z.strictObject({
  enabled: z.boolean().default(true),
  transport: z.enum(["stdio", "http", "sse"]).optional(),
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().url().optional(),
  headers: z.record(z.string(), z.string()).default({}),
  description: z.string().optional(),
  tool_name_prefix: z.boolean().optional(),
  session_init_timeout: z.number().positive().optional(),
  tool_call_timeout: z.number().positive().optional(),
});

/**
 * `tool_policies:`: tool name or glob (`*`, `?`) to `allow | deny | approval` (middleware/tool-policy.ts).
 * An exact name beats a glob, a longer glob a shorter one; unmatched tools are allowed.
 */
export const ToolPoliciesConfig = z
  .record(
    z.string().min(1),
    z.enum(["allow", "deny", "approval"], { error: "a tool policy must be allow, deny or approval" }),
  )
  .default({});

/** Deferred loading of MCP tools: past `threshold` tools, the model sees a catalogue and `tool_search`. */
export const ToolSearchConfig = z.strictObject({
  enabled: z.boolean().default(true),
  threshold: z.number().int().min(0).default(30),
});

export const DatabaseConfig = z.strictObject({
  backend: z.enum(["sqlite", "postgres"]).default("sqlite"),
  sqlite_path: z.string().nullable().default(null),
  /** Postgres URL (backend postgres); DATABASE_URL when null. `postgres_url` is its older name. */
  url: z.string().nullable().default(null),
  postgres_url: z.string().nullable().default(null),
});

/**
 * Where live run events travel (docs/deploy.md). `database`: the Postgres `run_events` table with
 * database.backend postgres, memory with sqlite. `redis`: one Redis Stream per run, which every process
 * on the same Redis can replay and follow; runs, threads and checkpoints stay in the database.
 */
export const StreamConfig = z.strictObject({
  backend: z.enum(["database", "redis"], { error: "stream.backend must be database or redis" }).default("database"),
  /** Redis URL (backend redis); REDIS_URL when null. */
  url: z.string().nullable().default(null),
  /** Prefix of every key, so services (or tests) can share one Redis. */
  key_prefix: z.string().min(1).default("deerflow:"),
});

/** Which checkpoints a thread keeps once a run is over (storage/retention.ts, docs/checkpoints.md). */
export const CheckpointsConfig = z.strictObject({
  retention: z
    .enum(["runs", "all", "latest"], { error: "checkpoints.retention must be one of runs, all, latest" })
    .default("runs"),
});

/** How model calls are bounded, retried and fitted into the window (the model-retry and tool-result-budget middlewares). */
export const LlmCallConfig = z.strictObject({
  timeout_seconds: Seconds.default(defaults.LLM_DEFAULTS.timeout_seconds),
  max_retries: z.number().int().min(0).max(20).default(3),
  retry_base_delay_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_DURATION_SECONDS * 1000)
    .default(defaults.LLM_DEFAULTS.retry_base_delay_ms),
  retry_cap_delay_ms: z
    .number()
    .int()
    .min(0)
    .max(MAX_DURATION_SECONDS * 1000)
    .default(defaults.LLM_DEFAULTS.retry_cap_delay_ms),
  retry_after_max_seconds: Seconds.default(defaults.LLM_DEFAULTS.retry_after_max_seconds),
  title_timeout_seconds: Seconds.default(15),
  memory_timeout_seconds: Seconds.default(30),
  tool_result_max_chars: z.number().int().min(1000).default(20000),
  tool_results_max_chars: z.number().int().min(1000).default(100000),
  /** Calls in a row that failed after their retries before the endpoint is paused (model-circuit); 0: never. */
  circuit_failure_threshold: z.number().int().min(0).max(1000).default(5),
  /** How long a paused endpoint refuses calls before one probe goes through. */
  circuit_cooldown_seconds: Seconds.default(60),
  /** Requests for the rest of an answer cut at the output limit, per model call (finish-reason); 0: only a note. */
  max_length_continuations: z.number().int().min(0).max(10).default(2),
});

/** `web:`: the web research tools (`web_search`, `web_fetch`, `image_search`) and their network policy. */
export const WebConfig = z.strictObject({
  search: z
    .strictObject({
      provider: z.enum(["tavily", "brave", "searxng"]).nullable().default(null),
      api_key: z.string().nullable().default(null),
      base_url: z.string().url().nullable().default(null),
      max_results: z.number().int().positive().max(20).default(5),
      timeout_seconds: Seconds.default(15),
      image_search: z.boolean().default(false),
    })
    .refine((search) => search.provider !== "searxng" || search.base_url !== null, {
      message: "the searxng provider needs base_url (your SearXNG instance, e.g. http://127.0.0.1:8080)",
    })
    .prefault({}),
  fetch: z
    .strictObject({
      enabled: z.boolean().default(true),
      timeout_seconds: Seconds.default(20),
      max_bytes: z.number().int().positive().default(2097152),
      max_chars: z.number().int().positive().default(20000),
      max_redirects: z.number().int().min(0).max(20).default(5),
    })
    .prefault({}),
  allow_hosts: z.array(z.string().min(1)).default([]),
});
export type WebConfig = z.infer<typeof WebConfig>;

/** `deerflow serve`: who may call it and from which browser origins. */
export const ServerConfig = z.strictObject({
  /** When non-empty, every route except /ok and /info needs one of these (x-api-key or Authorization: Bearer). Also DEER_FLOW_API_KEYS (comma-separated). */
  api_keys: z.array(z.string().min(16, "API keys must be at least 16 characters")).default([]),
  /** Browser origins allowed by CORS; ["*"] allows any. */
  cors_origins: z.array(z.string().min(1)).default(["*"]),
  /** Largest request body in bytes (default 1 MiB), whatever its Content-Type; larger bodies get 413. Upload routes use the uploads limits. */
  max_body_bytes: z.number().int().positive().default(1048576),
  /** Runs one process executes at the same time (on different threads). */
  max_concurrent_runs: z.number().int().min(1).max(1000).default(10),
  /**
   * Worker threads that execute runs (SQLite only; docs/server.md "How runs execute"): 0 runs graphs on the
   * event loop that answers HTTP (the default), N spreads them over N threads with their own event loops
   * and SQLite connections, so new requests are answered while runs work.
   */
  run_workers: z.number().int().min(0).max(64).default(0),
  /** Allow `PUT /api/mcp/config` to rewrite `mcpServers` in extensions_config.json (off: 403). */
  mcp_config_writes: z.boolean().default(false),
  /**
   * Stdio MCP servers a config written over HTTP may start (`mcp/stdio-allow.ts`): package names, run by
   * a package runner (`npx -y <package>`, `uvx <package>`) without runner options, or whole command
   * lines (`"node /opt/mcp/server.js"`). A runner or interpreter named alone (`npx`, `uvx`) allows nothing.
   * While `mcp_config_writes` is on, the extensions file's stdio servers must pass it at load too.
   */
  mcp_stdio_allow: z.array(z.string().min(1)).default([]),
  /** When non-empty, only these keys may change the MCP config or install, enable or disable skills over HTTP. */
  admin_api_keys: z.array(z.string().min(16, "API keys must be at least 16 characters")).default([]),
  /**
   * Accounts (docs/auth.md): `auto` turns them on once any user exists (`deerflow users add`, or the
   * first-admin setup); `users` requires sign-in from the start, before anyone exists.
   */
  auth: z.enum(["auto", "users"]).default("auto"),
  /**
   * Key of the HMAC-SHA256 signature on webhook deliveries (docs/schedules.md): receivers recompute it
   * over the timestamp and body to know a delivery came from this server. Null: deliveries are unsigned.
   */
  webhook_secret: z.string().min(16, "server.webhook_secret must be at least 16 characters").nullable().default(null),
});

/** A limit per user; null = unlimited. */
const QuotaLimit = z.number().int().min(0).nullable();

/** Per-user limits (`auth.quotas`); each user may override any of them. */
export const QuotasConfig = z.strictObject({
  /** Runs pending or running at once, across every process of a cluster. */
  concurrent_runs: QuotaLimit.default(4),
  /** Runs started per UTC day. */
  runs_per_day: QuotaLimit.default(null),
  /** Model tokens (input + output, as providers report them) per UTC day: every model call of a user's runs, subagents' included. */
  tokens_per_day: QuotaLimit.default(null),
  /** Bytes uploaded per UTC day. */
  upload_bytes_per_day: QuotaLimit.default(null),
});
export type QuotasConfig = z.infer<typeof QuotasConfig>;

/** Accounts: quotas, sign-in sessions and optional OIDC (docs/auth.md). */
export const AuthConfig = z.strictObject({
  quotas: QuotasConfig.prefault({}),
  /** How long a web sign-in lasts, in days. */
  session_days: z.number().min(0.01).max(365).default(7),
  /** Let anyone create an account on the sign-in page (off: admins create users). */
  allow_registration: z.boolean().default(false),
  /** The server's public URL (for OIDC's redirect URI), e.g. https://deerflow.example.com; default: the request's own origin. */
  public_url: z.string().url().nullish(),
  /** OpenID Connect sign-in; users are created on first sign-in. */
  oidc: z
    .strictObject({
      issuer: z.string().url(),
      client_id: z.string().min(1),
      client_secret: z.string().min(1),
      /** Name of the button on the sign-in page. */
      display_name: z.string().min(1).default("Single sign-on"),
      /** Extra scopes beyond `openid email profile`. */
      scopes: z.array(z.string().min(1)).default([]),
    })
    .nullish(),
});
export type AuthConfig = z.infer<typeof AuthConfig>;

/** A Telegram user allowed to talk to the bot: a numeric user id, an `@username`, or `"*"` for anyone. */
const TelegramUser = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^(\*|\d+|@?[A-Za-z0-9_]{3,32})$/, 'expected a numeric Telegram user id, an @username, or "*" for anyone'),
]);

/** `channels.telegram`: a bot that answers chats by long polling (docs/channels.md). */
export const TelegramChannelConfig = z.strictObject({
  /** The token @BotFather gives, `123456789:AA...`. */
  bot_token: z.string().regex(/^\d+:[A-Za-z0-9_-]+$/, "expected a bot token from @BotFather, like 123456789:AAH..."),
  /** Who is answered; everyone else is ignored. */
  allowed_users: z
    .array(TelegramUser)
    .min(1, 'expected at least one user id or @username (use ["*"] to answer anyone)'),
  /** The Bot API's address: a self-hosted telegram-bot-api server, or a stand-in in tests. */
  api_root: z.string().url().default("https://api.telegram.org"),
});
export type TelegramChannelConfig = z.infer<typeof TelegramChannelConfig>;

/** `channels.slack`: a Slack app whose Events API posts to `/api/channels/slack/events` (docs/channels.md). */
export const SlackChannelConfig = z.strictObject({
  /** The app's Bot User OAuth Token. */
  bot_token: z.string().regex(/^xoxb-[A-Za-z0-9-]+$/, "expected a bot token starting with xoxb-"),
  /** The app's Signing Secret (Basic Information page); requests not signed with it are refused. */
  signing_secret: z.string().min(16, "expected the app's signing secret (32 hex characters)"),
  /** Channel ids (C..., G..., or D... for a DM) that are answered; `"*"` answers every channel the app is in. */
  allowed_channels: z
    .array(z.string().regex(/^(\*|[CDG][A-Z0-9]+)$/, 'expected a Slack channel id like C0123ABCD, or "*"'))
    .min(1, 'expected at least one channel id (use ["*"] to answer every channel the app is in)'),
  /** The Web API's address (tests point it at a stand-in). */
  api_url: z.string().url().default("https://slack.com/api/"),
});
export type SlackChannelConfig = z.infer<typeof SlackChannelConfig>;

/** `channels:`: chat platforms whose messages become runs; a platform without a section is off. */
export const ChannelsConfig = z.strictObject({
  telegram: TelegramChannelConfig.nullish(),
  slack: SlackChannelConfig.nullish(),
});
export type ChannelsConfig = z.infer<typeof ChannelsConfig>;

/** The whole file. Keys DeerFlow has but we do not act on yet are accepted only where listed here. */
export const AppConfigSchema = z.strictObject({
  config_version: z.number().int().optional(),
  log_level: z.enum(["debug", "info", "warn", "warning", "error"]).default("info"),
  models: z.array(ModelEntry).default([]),
  summarization: SummarizationConfig.prefault({}),
  memory: MemoryConfig.prefault({}),
  title: TitleConfig.prefault({}),
  suggestions: SuggestionsConfig.prefault({}),
  sandbox: SandboxConfig.prefault({}),
  skills: SkillsConfig.prefault({}),
  uploads: UploadsConfig.prefault({}),
  subagents: SubagentsConfig.prefault({}),
  loop_detection: LoopDetectionConfig.prefault({}),
  tool_progress: ToolProgressConfig.prefault({}),
  token_budget: TokenBudgetConfig.prefault({}),
  tools: z.array(ToolEntry).default([]),
  mcp_servers: z.record(z.string(), McpServerEntry).default({}),
  tool_search: ToolSearchConfig.prefault({}),
  tool_policies: ToolPoliciesConfig,
  database: DatabaseConfig.prefault({}),
  stream: StreamConfig.prefault({}),
  checkpoints: CheckpointsConfig.prefault({}),
  llm_call: LlmCallConfig.prefault({}),
  web: WebConfig.prefault({}),
  server: ServerConfig.prefault({}),
  auth: AuthConfig.prefault({}),
  channels: ChannelsConfig.prefault({}),
});

/** A loaded, validated, frozen configuration. `source` is the file it came from (null: built-in defaults). */
export type AppConfig = z.infer<typeof AppConfigSchema> & { readonly source: string | null };

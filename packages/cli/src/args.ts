/**
 * Parses a command's flags with node's `parseArgs`, turning its errors into usage errors that say
 * which flag was wrong.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";

/** Flags shared by `run` and `chat`. */
export interface AgentFlags {
  config?: string;
  model?: string;
  thread?: string;
  plan: boolean;
  thinking: boolean;
  subagents: boolean;
  maxSubagents?: number;
  agent?: string;
  /** Seconds to wait for a thread another run holds (`--wait`); 0 refuses at once. */
  waitSeconds: number;
  /** Stream the answer as the model writes it, on a terminal (off with `--no-stream`). */
  stream: boolean;
}

const AGENT_OPTIONS = {
  config: { type: "string" },
  model: { type: "string" },
  thread: { type: "string" },
  plan: { type: "boolean", default: false },
  thinking: { type: "boolean", default: false },
  subagents: { type: "boolean", default: false },
  "max-subagents": { type: "string" },
  agent: { type: "string" },
  wait: { type: "string" },
  "no-stream": { type: "boolean", default: false },
} as const;

/** Parses `argv` with the shared agent flags plus `extra`. */
export function parseAgentArgs<E extends NonNullable<Parameters<typeof parseArgs>[0]>["options"]>(
  argv: string[],
  extra: E,
) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...AGENT_OPTIONS, ...extra }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify.*$/s, "")}. See --help.`);
  }
  const values = parsed.values as Record<string, unknown>;
  const maxRaw = values["max-subagents"] as string | undefined;
  const maxSubagents = maxRaw === undefined ? undefined : Number(maxRaw);
  if (maxSubagents !== undefined && (!Number.isInteger(maxSubagents) || maxSubagents < 1)) {
    throw new UsageError(`--max-subagents takes a whole number (1 to 4), got "${maxRaw}".`);
  }
  const waitRaw = values.wait as string | undefined;
  const waitSeconds = waitRaw === undefined ? 0 : Number(waitRaw);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > 86_400) {
    throw new UsageError(`--wait takes a number of seconds (0 to 86400), got "${waitRaw}".`);
  }
  const flags: AgentFlags = {
    config: values.config as string | undefined,
    model: values.model as string | undefined,
    thread: values.thread as string | undefined,
    plan: Boolean(values.plan),
    thinking: Boolean(values.thinking),
    subagents: Boolean(values.subagents) || maxSubagents !== undefined,
    maxSubagents,
    agent: values.agent as string | undefined,
    waitSeconds,
    stream: !values["no-stream"],
  };
  return { flags, values, positionals: parsed.positionals };
}

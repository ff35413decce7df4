/**
 * The part of a sandbox both providers share: thread directories, path policy, masking, timeouts and
 * cancellation of running commands. A provider only says how a prepared command is checked and
 * spawned (see `local-sandbox.ts` and `bwrap-sandbox.ts`).
 */
import type { ThreadDataState } from "../state/shapes.js";
import { maskHostPaths } from "./mask.js";
import type { PathPolicy } from "./path-policy.js";
import { type RunProcessResult, runProcess } from "./run-process.js";
import type { ExecuteOptions, PreparedCommand, Sandbox, SandboxKind } from "./sandbox.js";

/** How to spawn one command. */
export interface SpawnSpec {
  file: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** The process is a launcher reporting the real exit status on fd 3 (see `run-process.ts`). */
  statusPipe?: boolean;
  /** `NAME=value` in the command's environment, to find processes that left its group. */
  marker?: string;
}

/** What every provider passes in for one thread, whatever runs its commands. */
export interface ThreadSandboxBase {
  id: string;
  threadId: string;
  paths: ThreadDataState;
  policy: PathPolicy;
  bashTimeoutSeconds: number;
  bashOutputMaxChars: number;
}

/** What a provider supplies to build a thread's sandbox. */
export interface ThreadSandboxSpec {
  id: string;
  threadId: string;
  kind: SandboxKind;
  paths: ThreadDataState;
  policy: PathPolicy;
  defaultTimeoutSeconds: number;
  defaultMaxOutputChars: number;
  prepare(command: string): PreparedCommand;
  spawnSpec(command: string): SpawnSpec;
}

/** Output cap used when `bashOutputMaxChars` is 0 ("no truncation"): memory stays bounded anyway. */
export const UNLIMITED_OUTPUT_CEILING = 2_000_000;

/** Builds a {@link Sandbox} from a provider's spec. */
export function createThreadSandbox(spec: ThreadSandboxSpec): Sandbox {
  let closer = new AbortController();
  return {
    id: spec.id,
    threadId: spec.threadId,
    kind: spec.kind,
    paths: spec.paths,
    policy: spec.policy,
    prepareCommand: (command) => spec.prepare(command),
    mask: (text) => maskHostPaths(text, spec.policy.mapping()),
    execute(command: string, options: ExecuteOptions = {}): Promise<RunProcessResult> {
      const timeoutSeconds = options.timeoutSeconds ?? spec.defaultTimeoutSeconds;
      const maxChars = options.maxOutputChars ?? spec.defaultMaxOutputChars;
      const signal = options.signal ? AbortSignal.any([options.signal, closer.signal]) : closer.signal;
      return runProcess({
        ...spec.spawnSpec(command),
        timeoutMs: Math.max(1, Math.round(timeoutSeconds * 1000)),
        maxOutputChars: maxChars > 0 ? maxChars : UNLIMITED_OUTPUT_CEILING,
        signal,
      });
    },
    close() {
      closer.abort();
      closer = new AbortController();
    },
  };
}

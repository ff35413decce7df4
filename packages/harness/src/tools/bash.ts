/**
 * `bash`: runs a shell command in the thread's sandbox. The command passes the path policy first
 * (absolute paths, `..`, symlinks); the provider runs it with a timeout that kills the whole process
 * group and an output cap that keeps the start and end. Offered only when the provider allows it
 * (bubblewrap, or the local provider with `allow_host_bash: true`).
 */
import { z } from "zod";
import { appendBashAudit, auditEntry, type BashAuditEntry } from "../sandbox/bash-audit.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import type { RunProcessResult } from "../sandbox/run-process.js";
import { descriptionArg } from "./tool-args.js";
import { threadIdFromRuntime, type SandboxToolRuntime } from "./sandbox-runtime.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";

/** Dependencies of {@link createBashTool}. */
export interface BashToolOptions {
  provider: SandboxProvider;
  /** Output cap in characters (middle-truncated); 0 = no truncation. */
  outputMaxChars: number;
  /** The JSONL file every command is recorded in (`bashAuditPath(home)`), or null for none. */
  auditLog: string | null;
}

let auditWarned = false;

/** Appends a command's outcome to the audit log; a failed append is reported once and never fails the call. */
async function audit(
  file: string | null,
  provider: SandboxProvider,
  runtime: SandboxToolRuntime | undefined,
  command: string,
  startedAt: number,
  outcome: Pick<BashAuditEntry, "exit_code" | "signal" | "timed_out" | "cancelled" | "refused">,
): Promise<void> {
  if (!file) return;
  const runId = runtime?.configurable?.run_id ?? runtime?.config?.configurable?.run_id;
  const entry = auditEntry({
    timestamp: new Date().toISOString(),
    thread_id: threadIdFromRuntime(provider, runtime) ?? null,
    run_id: typeof runId === "string" ? runId : null,
    command,
    ...outcome,
    duration_ms: Date.now() - startedAt,
  });
  try {
    await appendBashAudit(file, entry);
  } catch (error) {
    if (auditWarned) return;
    auditWarned = true;
    console.warn(`bash: the audit log ${file} could not be written: ${(error as Error).message}`);
  }
}

/** Linux's limit on one argument string (MAX_ARG_STRLEN, 32 pages), terminating NUL included. */
export const MAX_ARGUMENT_BYTES = 131072;

/** The sentence for a command too long to hand to a process as one argument (without "Error: "), or null when it fits. */
export function argumentLimitError(command: string): string | null {
  const bytes = Buffer.byteLength(command);
  if (bytes < MAX_ARGUMENT_BYTES) return null;
  return (
    `the command is ${bytes} bytes, over the operating system's limit of ${MAX_ARGUMENT_BYTES} bytes for one argument. ` +
    "Write the script or data to a file with write_file (in chunks with append: true) and run it, e.g. bash /mnt/user-data/workspace/script.sh."
  );
}

/** Formats a finished command for the model (before host-path masking). */
export function formatCommandResult(
  result: RunProcessResult,
  timeoutSeconds: number,
  _kind?: SandboxProvider["kind"],
): string {
  if (result.spawnError) {
    if (/E2BIG/.test(result.spawnError)) {
      return "Error: the command could not be started: it is over the operating system's argument size limit. Write it to a file with write_file and run that file instead.";
    }
    return `Error: the command could not be started: ${result.spawnError}`;
  }
  if (result.aborted)
    return `Error: the command was cancelled.${result.output ? ` Output so far:\n${result.output}` : ""}`;
  if (result.timedOut) {
    const advice = "Split the work into shorter commands (background processes end with the command in this sandbox).";
    return `Error: Command timed out after ${timeoutSeconds} seconds and was stopped (its whole process group was killed). ${advice}${
      result.output ? `\nOutput before the timeout:\n${result.output}` : ""
    }`;
  }
  const body = result.output === "" ? "(no output)" : result.output;
  if (result.exitCode !== 0) return `${body}\n[exit code: ${result.exitCode ?? result.exitSignal}]`;
  return body;
}

/**
 * Builds the `bash` tool.
 *
 * @example
 * ```ts
 * const bash = createBashTool({ provider, outputMaxChars: 20000, auditLog: bashAuditPath(provider.home) });
 * ```
 */
export function createBashTool(options: BashToolOptions) {
  const { provider } = options;
  return sandboxTool({
    name: "bash",
    provider,
    description:
      "Run a bash command in the sandbox. The working directory is /mnt/user-data/workspace; use absolute paths under " +
      `/mnt/user-data/ (workspace, uploads, outputs) or ${provider.skillsContainerPath ?? "/mnt/skills"}/ (read-only). stdin is closed. Long output is cut in the ` +
      "middle. Each command has a time limit and is killed when it passes it." +
      (provider.kind === "bwrap" ? " There is no network access, and /tmp is private to each command." : ""),
    schema: z.object({
      description: descriptionArg,
      command: z.string().describe("The bash command to run."),
    }),
    run: async ({ command }, { sandbox, runtime }) => {
      const startedAt = Date.now();
      const refuse = async (reason: string) => {
        await audit(options.auditLog, provider, runtime, command, startedAt, { exit_code: null, refused: reason });
        return toolFailure(reason, { verbatim: true });
      };
      const prepared = sandbox.prepareCommand(command);
      if (!prepared.ok) return refuse(prepared.error);
      const tooLong = argumentLimitError(prepared.command);
      if (tooLong) return refuse(tooLong);
      const timeoutSeconds = provider.bashTimeoutSeconds;
      const result = await sandbox.execute(prepared.command, {
        maxOutputChars: options.outputMaxChars,
        ...(runtime?.signal ? { signal: runtime.signal } : {}),
      });
      await audit(options.auditLog, provider, runtime, command, startedAt, {
        exit_code: result.exitCode,
        ...(result.exitSignal ? { signal: result.exitSignal } : {}),
        ...(result.timedOut ? { timed_out: true } : {}),
        ...(result.aborted ? { cancelled: true } : {}),
        ...(result.spawnError ? { refused: `could not start: ${result.spawnError}` } : {}),
      });
      // A command that ran (even one that timed out or exited non-zero) is a result the model reads, not a tool failure.
      return sandbox.mask(formatCommandResult(result, timeoutSeconds, provider.kind));
    },
  });
}

/**
 * The sandbox contract shared by the providers and the tools. A sandbox is one thread's place to work:
 * its three directories, the path policy over them, and a way to run shell commands. File tools do
 * not go through the provider: they run in the harness process through the same path policy (under
 * bubblewrap the thread directory is bind-mounted, so the host view and the sandbox view are the same
 * files). Only shell commands differ between providers.
 */
import type { ThreadDataState } from "../state/shapes.js";
import type { PathPolicy } from "./path-policy.js";
import type { RunProcessResult } from "./run-process.js";

/** How commands run: inside bubblewrap, or directly on the host. */
export type SandboxKind = "bwrap" | "local";

/** Per-command options. */
export interface ExecuteOptions {
  /** Wall-clock limit; defaults to the provider's `bashTimeoutSeconds`. */
  timeoutSeconds?: number;
  /** Output kept (middle-truncated); defaults to the provider's `bashOutputMaxChars`. */
  maxOutputChars?: number;
  /** Cancels the command (its process group is killed). */
  signal?: AbortSignal;
}

/** A command the sandbox accepted (possibly rewritten), or the reason it refused it. */
export type PreparedCommand = { ok: true; command: string } | { ok: false; error: string };

/** One thread's sandbox. */
export interface Sandbox {
  readonly id: string;
  readonly threadId: string;
  readonly kind: SandboxKind;
  /** Host directories of the thread. */
  readonly paths: ThreadDataState;
  /** The path policy every file tool and command check uses for this thread. */
  readonly policy: PathPolicy;
  /** Applies the path policy to a command and rewrites virtual paths where the provider needs it. */
  prepareCommand(command: string): PreparedCommand;
  /**
   * Runs an already prepared command with `bash -c` in the workspace. Output is raw (host paths not
   * yet masked); use {@link Sandbox.mask} before showing it to the model.
   */
  execute(command: string, options?: ExecuteOptions): Promise<RunProcessResult>;
  /** Rewrites host paths in text to virtual paths. */
  mask(text: string): string;
  /** Kills this sandbox's running commands. */
  close(): void;
}

/** Owns the sandboxes of all threads. One per process (or per server). */
export interface SandboxProvider {
  /** What `use: auto` resolved to, so the CLI can say which. */
  readonly kind: SandboxKind;
  /** One sentence on why this kind was chosen (e.g. why bwrap was not usable). */
  readonly reason: string;
  /** False for the local provider unless `allowHostBash` was set: the `bash` tool is then not offered. */
  readonly bashAvailable: boolean;
  /** The DeerFlow home whose `threads/` hold the thread directories. */
  readonly home: string;
  /** Default wall-clock limit of one command, in seconds. */
  readonly bashTimeoutSeconds: number;
  /** Where the model sees the skills (`skills.container_path`); optional for providers built elsewhere. */
  readonly skillsContainerPath?: string;
  /** Creates (or returns) the thread's sandbox and its directories; returns the sandbox id. */
  acquire(threadId: string): string;
  /** The sandbox with this id, if this provider holds it. Pure in-memory lookup. */
  get(id: string): Sandbox | undefined;
  /** Stops the sandbox's running commands and forgets it; a later `acquire` recreates it. */
  release(id: string): void;
  /** Releases every sandbox. */
  shutdown(): Promise<void>;
  /**
   * Shows `dir` at the skills path in sandboxes created from now on (after skills were enabled or
   * disabled); sandboxes already open keep the view they started with until released.
   */
  setSkillsPath?(dir: string | null): void;
}

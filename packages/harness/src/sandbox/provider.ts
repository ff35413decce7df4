/**
 * Chooses and owns the sandboxes. `use: auto` prefers bubblewrap and proves it works by running one
 * command when the kind is first needed; otherwise commands run on the host (local). A thread keeps one sandbox, with
 * an id derived from the thread id alone, for the life of the provider: the same id comes back across
 * turns and across restarts, even if the provider kind changed in between, so the `sandbox` state
 * channel (which fails closed on a different id) never sees a conflict for one thread.
 */
import path from "node:path";
import { SandboxError } from "../errors.js";
import { createBwrapSandbox, findExecutable, probeBwrap } from "./bwrap-sandbox.js";
import { writeSandboxEtc } from "./bwrap-args.js";
import { createLocalSandbox } from "./local-sandbox.js";
import { PathPolicy, type SandboxMount, validateMounts, validateSkillsContainerPath } from "./path-policy.js";
import type { Sandbox, SandboxKind, SandboxProvider } from "./sandbox.js";
import { VIRTUAL_SKILLS, ensureThreadDirs, threadUserDataDir, validateThreadId } from "./virtual-paths.js";

/** Options of {@link createSandboxProvider} (the `sandbox:` config section, mapped by the caller). */
export interface SandboxProviderOptions {
  /** `auto` (bubblewrap when it works here, else local), `bwrap` (required; fails if unusable), or `local`. */
  use: "auto" | "bwrap" | "local";
  /** DeerFlow home; thread directories live under `{home}/threads/`. */
  home: string;
  /** Host directory shown read-only at `skillsContainerPath`; may not exist. */
  skillsPath?: string | null;
  /** Where the model sees the skills (`skills.container_path`). Default `/mnt/skills`. */
  skillsContainerPath?: string;
  /** Offer `bash` with the local provider (host execution). DeerFlow's default is false. */
  allowHostBash: boolean;
  /** Wall-clock limit of one command. DeerFlow default 600. */
  bashTimeoutSeconds: number;
  /** Output kept per command, middle-truncated. DeerFlow default 20000; 0 means no truncation. */
  bashOutputMaxChars: number;
  /** bwrap binary to use instead of searching PATH. */
  bwrapPath?: string;
  /** Environment the local provider's commands inherit (secrets scrubbed). Default: this process's. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
  /** Custom mounts (`sandbox.mounts`); checked here, so a bad entry fails at construction. */
  mounts?: readonly SandboxMount[];
}

const ID_PREFIX = "sandbox:";

/** The id of a thread's sandbox (the same for every provider kind). */
export function sandboxIdFor(threadId: string): string {
  return ID_PREFIX + validateThreadId(threadId);
}

/** The thread id inside a sandbox id, or undefined when the id is not one of ours. */
export function threadIdOfSandbox(id: string): string | undefined {
  if (!id.startsWith(ID_PREFIX)) return undefined;
  const threadId = id.slice(ID_PREFIX.length);
  try {
    return validateThreadId(threadId);
  } catch {
    return undefined;
  }
}

/**
 * Builds the sandbox provider. Throws a `SandboxError` when `use: bwrap` is asked for and bubblewrap
 * does not work here.
 *
 * @example
 * ```ts
 * const provider = createSandboxProvider({ use: "auto", home, skillsPath: `${home}/skills`,
 *   allowHostBash: false, bashTimeoutSeconds: 600, bashOutputMaxChars: 20000 });
 * console.log(`sandbox: ${provider.kind} (${provider.reason})`);
 * ```
 */
export function createSandboxProvider(options: SandboxProviderOptions): SandboxProvider {
  const home = path.resolve(options.home);
  const skillsVirtualPath = validateSkillsContainerPath(options.skillsContainerPath ?? VIRTUAL_SKILLS);
  const mounts = validateMounts(options.mounts ?? [], skillsVirtualPath);
  const hostEnv = options.hostEnv ?? process.env;
  const etcDir = path.join(home, "sandbox", "etc");
  // `use: auto` proves bubblewrap by running a command (a quarter of a second): done when something first
  // asks, so a command that never runs a tool (`deerflow users list`) does not pay for it. `use: bwrap`
  // is checked at once, so a machine without it fails at start.
  let chosen: KindChoice | undefined = options.use === "bwrap" ? chooseKind(options, etcDir, hostEnv.PATH) : undefined;
  const choice = (): KindChoice => {
    chosen ??= chooseKind(options, etcDir, hostEnv.PATH);
    return chosen;
  };
  const sandboxes = new Map<string, Sandbox>();
  const shell = findExecutable("bash", hostEnv.PATH) ?? "/bin/bash";
  let skillsPath = options.skillsPath ?? null;

  const create = (threadId: string): Sandbox => {
    const id = sandboxIdFor(threadId);
    const paths = ensureThreadDirs(home, threadId);
    const policy = new PathPolicy({
      userDataDir: threadUserDataDir(home, threadId),
      skillsDir: skillsPath,
      skillsVirtualPath,
      mounts,
    });
    const common = {
      id,
      threadId,
      paths,
      policy,
      bashTimeoutSeconds: options.bashTimeoutSeconds,
      bashOutputMaxChars: options.bashOutputMaxChars,
    };
    const kind = choice();
    return kind.kind === "bwrap"
      ? createBwrapSandbox({ ...common, bwrapPath: kind.bwrapPath, etcDir })
      : createLocalSandbox({ ...common, hostEnv, shell });
  };

  return {
    get kind() {
      return choice().kind;
    },
    get reason() {
      return choice().reason;
    },
    get bashAvailable() {
      return choice().kind === "bwrap" || options.allowHostBash;
    },
    home,
    bashTimeoutSeconds: options.bashTimeoutSeconds,
    skillsContainerPath: skillsVirtualPath,
    acquire(threadId) {
      const id = sandboxIdFor(threadId);
      const existing = sandboxes.get(id);
      if (existing) {
        ensureThreadDirs(home, threadId);
        return id;
      }
      sandboxes.set(id, create(threadId));
      return id;
    },
    get: (id) => sandboxes.get(id),
    release(id) {
      sandboxes.get(id)?.close();
      sandboxes.delete(id);
    },
    async shutdown() {
      for (const sandbox of sandboxes.values()) sandbox.close();
      sandboxes.clear();
    },
    setSkillsPath(dir) {
      skillsPath = dir;
    },
  };
}

type KindChoice =
  | { kind: "bwrap"; bwrapPath: string; reason: string }
  | { kind: Exclude<SandboxKind, "bwrap">; reason: string };

function chooseKind(options: SandboxProviderOptions, etcDir: string, searchPath: string | undefined): KindChoice {
  if (options.use === "local") return { kind: "local", reason: "sandbox.use is local" };
  const bwrapPath = options.bwrapPath ?? findExecutable("bwrap", searchPath);
  let failure: string;
  if (!bwrapPath) {
    failure = "bwrap was not found on PATH";
  } else {
    writeSandboxEtc(etcDir);
    const probe = probeBwrap(bwrapPath, etcDir);
    if (probe.ok) return { kind: "bwrap", bwrapPath, reason: `bubblewrap works here (${bwrapPath})` };
    failure = probe.reason;
  }
  if (options.use === "bwrap") {
    throw new SandboxError(
      `sandbox.use is bwrap but ${failure}. Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap, or run scripts/setup-bwrap.sh), or set sandbox.use: local.`,
      { code: "sandbox_failed" },
    );
  }
  return { kind: "local", reason: `${failure}; commands run on the host` };
}

/**
 * The local provider's sandbox: commands run on the host as the harness user, in the thread's
 * workspace, from an allow-listed environment, with virtual paths rewritten (quoted) to host paths.
 * The command path check is the only guard for paths, and it can be talked around, so this is not a
 * security boundary; that is why host bash is off unless `allow_host_bash` is set.
 *
 * Two things keep the harness's own secrets away from the command. Its environment is rebuilt from an
 * allow-list (`buildHostCommandEnv`). And the harness is never the command's parent: a launcher shell
 * starts the command's own shell in the background and exits at once, so `/proc/$PPID/environ` (and
 * the parent's parent, now init) shows only the clean environment; the exit status comes back on fd 3.
 * Everything runs in a new session and process group, killed as a whole when the command ends.
 */
import { randomBytes } from "node:crypto";
import {
  checkCommandPaths,
  rewriteVirtualPaths,
  SAFE_DEVICE_PATHS,
  SYSTEM_READ_ONLY_PREFIXES,
} from "./command-paths.js";
import { buildHostCommandEnv } from "./env.js";
import type { Sandbox } from "./sandbox.js";
import { createThreadSandbox, type ThreadSandboxBase } from "./thread-sandbox.js";

/** What the local provider passes in for one thread. */
export interface LocalSandboxOptions extends ThreadSandboxBase {
  /** Environment to inherit (secrets are scrubbed). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Path of bash on the host. */
  shell: string;
}

/**
 * Run by the launcher shell (`$1` = bash, `$2` = the command): a background subshell runs the command
 * (without fd 3) and writes its exit status to fd 3; the launcher exits at once, so the subshell's
 * parent is init, not the harness.
 */
const LAUNCHER = `( "$1" -c "$2" 3>&-; echo "$?" >&3 ) & exit 0`;

/**
 * `environ` as a file name (`/proc/PID/environ`, `cat environ`), not as code (`os.environ`). A plain
 * guard: text can be assembled at run time, which is why the launcher keeps the harness out of reach.
 */
const ENVIRON_WORD = /(^|[\s'"/=<])environ([\s'"/;|&)<>]|$)/;

/** Builds a thread's local sandbox. */
export function createLocalSandbox(options: LocalSandboxOptions): Sandbox {
  const { policy, paths } = options;
  return createThreadSandbox({
    id: options.id,
    threadId: options.threadId,
    kind: "local",
    paths,
    policy,
    defaultTimeoutSeconds: options.bashTimeoutSeconds,
    defaultMaxOutputChars: options.bashOutputMaxChars,
    prepare(command) {
      const error = checkCommandPaths(command, policy, {
        readOnlyPrefixes: SYSTEM_READ_ONLY_PREFIXES,
        writablePrefixes: SAFE_DEVICE_PATHS,
        hostWorkspace: paths.workspace_path,
      });
      if (error) return { ok: false, error };
      if (ENVIRON_WORD.test(command)) {
        return {
          ok: false,
          error: "Access denied: commands may not read process environments (/proc/*/environ) on the host.",
        };
      }
      return { ok: true, command: rewriteVirtualPaths(command, policy) };
    },
    spawnSpec(command) {
      const marker = `DEERFLOW_COMMAND_ID=${randomBytes(12).toString("hex")}`;
      const [markerName, markerValue] = marker.split("=") as [string, string];
      return {
        file: options.shell,
        args: ["-c", LAUNCHER, "deerflow-launcher", options.shell, command],
        cwd: paths.workspace_path,
        env: buildHostCommandEnv(options.hostEnv, {
          HOME: paths.workspace_path,
          PWD: paths.workspace_path,
          [markerName]: markerValue,
        }),
        statusPipe: true,
        marker,
      };
    },
  });
}

/**
 * The local provider's sandbox: commands run on the host as the harness user, in the thread's
 * workspace, with secret-looking variables removed from the environment and virtual paths rewritten
 * to host paths. The command path check is the only guard, and it can be talked around, so this is
 * not a security boundary; that is why host bash is off unless `allow_host_bash` is set.
 */
import { checkCommandPaths, rewriteVirtualPaths, SAFE_DEVICE_PATHS, SYSTEM_READ_ONLY_PREFIXES } from "./command-paths.js";
import { buildSandboxEnv } from "./env.js";
import type { Sandbox } from "./sandbox.js";
import { createThreadSandbox, type ThreadSandboxBase } from "./thread-sandbox.js";

/** What the local provider passes in for one thread. */
export interface LocalSandboxOptions extends ThreadSandboxBase {
  /** Environment to inherit (secrets are scrubbed). */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Path of bash on the host. */
  shell: string;
}

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
      return error ? { ok: false, error } : { ok: true, command: rewriteVirtualPaths(command, policy) };
    },
    spawnSpec(command) {
      return {
        file: options.shell,
        args: ["-c", command],
        cwd: paths.workspace_path,
        env: buildSandboxEnv(options.hostEnv, { HOME: paths.workspace_path, PWD: paths.workspace_path }),
      };
    },
  });
}

/**
 * How a sandbox tool finds its thread's sandbox. Acquisition is lazy: the first tool call of a thread
 * creates the sandbox (the sandbox middleware then records its id in state). The thread is looked up
 * in this order: the `sandbox` state channel (a subagent inherits its parent's), the `thread_data`
 * channel (host paths of the parent thread), then `configurable.thread_id`.
 */
import path from "node:path";
import type { SandboxProvider, Sandbox } from "../sandbox/sandbox.js";
import { threadIdOfSandbox } from "../sandbox/provider.js";
import { threadPaths } from "../sandbox/virtual-paths.js";
import { isHarnessError } from "../errors.js";
import { type ToolFailure, toolFailure } from "./sandbox-tool.js";

/** The parts of a langchain `ToolRuntime` the sandbox tools read. */
export interface SandboxToolRuntime {
  state?: unknown;
  toolCallId?: string;
  configurable?: Record<string, unknown>;
  config?: { configurable?: Record<string, unknown> };
  signal?: AbortSignal;
}

interface StateView {
  sandbox?: { sandbox_id?: string | null } | null;
  thread_data?: { workspace_path?: string } | null;
}

/** The thread id a tool call belongs to, or undefined. */
export function threadIdFromRuntime(
  provider: Pick<SandboxProvider, "home">,
  runtime: SandboxToolRuntime | undefined,
): string | undefined {
  const state = (runtime?.state ?? {}) as StateView;
  const fromSandbox = state.sandbox?.sandbox_id ? threadIdOfSandbox(state.sandbox.sandbox_id) : undefined;
  if (fromSandbox) return fromSandbox;
  const workspace = state.thread_data?.workspace_path;
  if (typeof workspace === "string") {
    const candidate = path.basename(path.dirname(path.dirname(workspace)));
    try {
      if (threadPaths(provider.home, candidate).workspace_path === workspace) return candidate;
    } catch {
      // not a thread of this home
    }
  }
  const configured = runtime?.configurable?.thread_id ?? runtime?.config?.configurable?.thread_id;
  return typeof configured === "string" ? configured : undefined;
}

/** The thread's sandbox (acquired on first use), or the failure to show the model. */
export function sandboxForRuntime(
  provider: SandboxProvider,
  runtime: SandboxToolRuntime | undefined,
): Sandbox | ToolFailure {
  const threadId = threadIdFromRuntime(provider, runtime);
  if (!threadId)
    return toolFailure("this run has no thread id (configurable.thread_id), so there is no sandbox to use.");
  try {
    const sandbox = provider.get(provider.acquire(threadId));
    return sandbox ?? toolFailure("the sandbox could not be acquired.");
  } catch (error) {
    return toolFailure(
      isHarnessError(error) ? error.message : `the sandbox could not be acquired: ${(error as Error).message}`,
    );
  }
}

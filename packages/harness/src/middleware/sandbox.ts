/**
 * Chain slot 3. Records the thread's sandbox in the `sandbox` channel. Acquisition is lazy (DeerFlow's
 * `lazy_init`): a run that never touches a file or the shell never creates a sandbox. The first
 * sandbox tool call acquires it through the provider, and this middleware's `wrapToolCall` notices the
 * new sandbox and adds `sandbox: { sandbox_id }` to that call's result. The sandbox is kept across
 * turns (same id, see `provider.ts`) and released when the provider shuts down.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { sandboxIdFor } from "../sandbox/provider.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { threadStateSubset } from "../state/thread-state.js";
import { threadIdFromRuntime } from "../tools/sandbox-runtime.js";
import type { Logger } from "../logger.js";

/** Options of {@link sandboxMiddleware}. */
export interface SandboxMiddlewareOptions {
  provider: SandboxProvider;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/**
 * Adds `sandbox: { sandbox_id }` to a tool result: a ToolMessage becomes a Command carrying it, a
 * Command with an object update gets the extra key. Other Commands are returned unchanged.
 */
export function withSandboxUpdate(result: ToolMessage | Command, sandboxId: string): ToolMessage | Command {
  if (!(result instanceof Command))
    return new Command({ update: { sandbox: { sandbox_id: sandboxId }, messages: [result] } });
  const update = result.update;
  if (update === undefined || update === null || Array.isArray(update) || typeof update !== "object") return result;
  return new Command({
    goto: result.goto,
    graph: result.graph,
    resume: result.resume,
    update: { ...(update as Record<string, unknown>), sandbox: { sandbox_id: sandboxId } },
  });
}

/**
 * Writes the sandbox id into state after the tool call that acquired it.
 *
 * @example
 * ```ts
 * const provider = createSandboxProvider({ use: "auto", home, allowHostBash: false, bashTimeoutSeconds: 600, bashOutputMaxChars: 20000 });
 * createAgent({ model, tools: createSandboxTools({ provider, vision: false }), middleware: [sandboxMiddleware({ provider })] });
 * ```
 */
export function sandboxMiddleware(options: SandboxMiddlewareOptions) {
  const { provider } = options;
  return createMiddleware({
    name: "sandbox",
    stateSchema: threadStateSubset("sandbox", "thread_data"),
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const threadId = threadIdFromRuntime(provider, {
        state: request.state,
        configurable: request.runtime.configurable,
      });
      if (!threadId) return result;
      let id: string;
      try {
        id = sandboxIdFor(threadId);
      } catch {
        return result;
      }
      if (!provider.get(id) || request.state.sandbox?.sandbox_id === id) return result;
      options.logger?.debug(`acquired sandbox ${id}`);
      return withSandboxUpdate(result, id);
    },
  });
}

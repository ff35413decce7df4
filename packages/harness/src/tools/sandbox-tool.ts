/**
 * One wrapper for every sandbox tool (bash, ls, read_file, write_file, str_replace, glob, grep,
 * present_files, view_image). It does what each of them needs first (find the thread's sandbox,
 * acquiring it on first use) and last (turn a failure or an unexpected exception into the ToolMessage
 * the model reads, with host paths masked), so a tool body holds only its own work.
 *
 * A tool body reports a failure by returning `toolFailure(sentence)`, a typed value, instead of a text
 * starting with "Error: " that callers would have to recognise again. The failure becomes one
 * ToolMessage with `status: "error"` and the text `Error: <sentence>`, written here and nowhere else;
 * the status lets the middlewares (skill capture, history, summaries) tell failures from results.
 */
import type { Command } from "@langchain/langgraph";
import { ToolMessage, tool } from "langchain";
import type { z } from "zod";
import type { Sandbox, SandboxProvider } from "../sandbox/sandbox.js";
import { sandboxForRuntime, type SandboxToolRuntime } from "./sandbox-runtime.js";

/** A tool call that failed, with the sentence that says why and what to do (no "Error: " prefix). */
export class ToolFailure {
  readonly ok = false;
  constructor(
    readonly error: string,
    /** Show the sentence as given, without masking host paths (the path policy's refusals echo the model's own input). */
    readonly verbatim = false,
  ) {}
}

/**
 * A failure result for a sandbox tool body. `verbatim` skips host-path masking: a refusal that quotes
 * the path the model sent must quote it as sent.
 */
export function toolFailure(error: string, options: { verbatim?: boolean } = {}): ToolFailure {
  return new ToolFailure(error, options.verbatim ?? false);
}

/** What a sandbox tool body returns: the text or message for the model, a state update, or a failure. */
export type SandboxToolResult = string | ToolMessage | Command | ToolFailure;

/** What a sandbox tool body gets besides its arguments. */
export interface SandboxToolContext {
  sandbox: Sandbox;
  runtime: SandboxToolRuntime;
}

/** Definition of a sandbox tool: langchain's name, description and schema, plus the body. */
export interface SandboxToolDefinition<Schema extends z.ZodObject> {
  name: string;
  description: string;
  schema: Schema;
  provider: SandboxProvider;
  /** The tool's work; may throw (the exception becomes a failure, see `describeError`). */
  run(args: z.infer<Schema>, context: SandboxToolContext): Promise<SandboxToolResult>;
  /** The sentence for an exception the body did not expect. Default: `<name> failed: <message>`. */
  describeError?(error: unknown, args: z.infer<Schema>): string;
  /** Longest error text the model gets, in characters. Default: no limit. */
  maxErrorChars?: number;
}

/** The error ToolMessage for a failed call: `Error: <sentence>`, status "error". */
export function failureMessage(name: string, runtime: SandboxToolRuntime | undefined, text: string): ToolMessage {
  return new ToolMessage({ content: text, name, tool_call_id: runtime?.toolCallId ?? "", status: "error" });
}

/**
 * Builds a sandbox tool from its definition.
 *
 * @example
 * ```ts
 * const ls = sandboxTool({
 *   name: "ls", description: "List a directory.", schema: z.object({ path: z.string() }), provider,
 *   run: async ({ path }, { sandbox }) => {
 *     const target = sandbox.policy.resolve(path, "read");
 *     return target.ok ? listing(target) : toolFailure(target.error);
 *   },
 * });
 * ```
 */
export function sandboxTool<Schema extends z.ZodObject>(definition: SandboxToolDefinition<Schema>) {
  const { name } = definition;
  const body = async (args: z.infer<Schema>, runtime: SandboxToolRuntime) => {
    const sandbox = sandboxForRuntime(definition.provider, runtime);
    if (sandbox instanceof ToolFailure) return failureMessage(name, runtime, `Error: ${sandbox.error}`);
    let result: SandboxToolResult;
    try {
      result = await definition.run(args, { sandbox, runtime });
    } catch (error) {
      result = toolFailure(
        definition.describeError?.(error, args) ??
          `${name} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!(result instanceof ToolFailure)) return result;
    const text = result.verbatim ? `Error: ${result.error}` : sandbox.mask(`Error: ${result.error}`);
    return failureMessage(name, runtime, definition.maxErrorChars ? text.slice(0, definition.maxErrorChars) : text);
  };
  return tool(body as (args: unknown, runtime: SandboxToolRuntime) => Promise<string | ToolMessage | Command>, {
    name,
    description: definition.description,
    schema: definition.schema,
  });
}

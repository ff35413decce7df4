/**
 * Refuses to overwrite or edit an existing file the model has not looked at.
 *
 * A model that writes without reading back appends the same section to a report again and again, or
 * replaces a file someone else changed. So `write_file` (appending too) and `str_replace` on a file
 * that exists pass only when the file's current content is what the model last read or wrote: a
 * `read_file` or a successful write of that path in the conversation carries a mark (the file's
 * SHA-256, in the result's `additional_kwargs.read_mark`) equal to the file's hash now. Otherwise the
 * call is answered with an error telling the model to read the file first. New files are never gated.
 *
 * The marks live in the messages, not in the middleware: summarization that drops a read result drops
 * its mark with it, and a file changed since (by bash, a subagent, the user) no longer matches. When
 * the file cannot be inspected (no sandbox, a path the policy refuses, not a regular file), the gate
 * lets the tool run and give its own error. A check and the call it admits hold a per-file lock, so
 * two writes of one response cannot both pass on the same mark.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Logger } from "../logger.js";
import { withPathLock } from "../sandbox/safe-fs.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { sandboxForRuntime } from "../tools/sandbox-runtime.js";
import { ToolFailure } from "../tools/sandbox-tool.js";

/** Options of {@link readBeforeWriteMiddleware}. */
export interface ReadBeforeWriteOptions {
  /** The sandbox provider the file tools use; the gate reads files through its path policy. */
  provider: SandboxProvider;
  /** The harness log (`log_level`). Default: none. */
  logger?: Logger;
}

/** Where a read or write result records the version of the file it saw. */
export const READ_MARK_KEY = "read_mark";

/** The mark on a `read_file` / `write_file` / `str_replace` result: the file and its hash after the call. */
export interface ReadMark {
  path: string;
  sha256: string;
}

const READ_TOOLS = new Set(["read_file"]);
const WRITE_TOOLS = new Set(["write_file", "str_replace"]);

/**
 * The hash of the newest mark for `virtualPath` in `messages`, or undefined when there is none.
 *
 * @example
 * const read = new ToolMessage({ content: "...", tool_call_id: "r1", additional_kwargs: { read_mark: { path: "/mnt/user-data/workspace/a.md", sha256: "ab12" } } });
 * latestReadMark([read], "/mnt/user-data/workspace/a.md"); // → "ab12"
 * latestReadMark([read], "/mnt/user-data/workspace/b.md"); // → undefined
 */
export function latestReadMark(messages: readonly BaseMessage[], virtualPath: string): string | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (!ToolMessage.isInstance(message)) continue;
    const mark = message.additional_kwargs?.[READ_MARK_KEY] as Partial<ReadMark> | undefined;
    if (mark?.path === virtualPath && typeof mark.sha256 === "string") return mark.sha256;
  }
  return undefined;
}

/** The error text of a refused write. */
export function readFirstMessage(toolName: string, virtualPath: string): string {
  return (
    `Error: ${toolName} was refused: ${virtualPath} already exists and you have not read its current version ` +
    "(it was not read or written in this conversation, or it changed since). Call read_file on it first " +
    "(a range is enough, e.g. the last 30 lines before an append), check what is already there, then retry."
  );
}

/** SHA-256 of a file, streamed (read_file can read ranges of files far larger than memory should hold). */
async function hashFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** A file the gate looked at: its sandbox path, host path, and hash (null: it does not exist). */
interface Inspected {
  virtualPath: string;
  realPath: string;
  sha256: string | null;
}

/**
 * Adds the read-before-write gate for the sandbox file tools.
 *
 * @example
 * createAgent({ model, tools: createSandboxTools({ provider, vision: false }), middleware: [readBeforeWriteMiddleware({ provider })] });
 */
export function readBeforeWriteMiddleware(options: ReadBeforeWriteOptions) {
  const { provider } = options;

  /** The file a call names, or undefined when the gate cannot tell (the tool then reports its own error). */
  async function inspect(args: unknown, state: unknown, configurable: unknown): Promise<Inspected | undefined> {
    const input = (args as { path?: unknown } | undefined)?.path;
    if (typeof input !== "string" || input === "") return undefined;
    const sandbox = sandboxForRuntime(provider, { state, configurable: configurable as Record<string, unknown> });
    if (sandbox instanceof ToolFailure) return undefined;
    const target = sandbox.policy.resolve(input, "read");
    if (!target.ok) return undefined;
    try {
      const stat = await fs.stat(target.realPath);
      if (!stat.isFile()) return undefined;
      const sha256 = await hashFile(target.realPath);
      return { virtualPath: target.virtualPath, realPath: target.realPath, sha256 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return { virtualPath: target.virtualPath, realPath: target.realPath, sha256: null };
      return undefined;
    }
  }

  /** Stamps a successful result with the file's hash after the call. */
  async function stamp(result: unknown, args: unknown, state: unknown, configurable: unknown): Promise<void> {
    if (!ToolMessage.isInstance(result) || result.status === "error") return;
    const after = await inspect(args, state, configurable);
    if (!after?.sha256) return;
    result.additional_kwargs = {
      ...result.additional_kwargs,
      [READ_MARK_KEY]: { path: after.virtualPath, sha256: after.sha256 } satisfies ReadMark,
    };
  }

  return createMiddleware({
    name: "read-before-write",
    wrapToolCall: async (request, handler) => {
      const name = request.toolCall.name;
      if (!READ_TOOLS.has(name) && !WRITE_TOOLS.has(name)) return handler(request);
      const { args } = request.toolCall;
      const configurable = request.runtime.configurable;
      const before = await inspect(args, request.state, configurable);
      if (!before) return handler(request);
      return withPathLock(`read-before-write:${before.realPath}`, async () => {
        if (WRITE_TOOLS.has(name)) {
          const current = await inspect(args, request.state, configurable);
          const messages = (request.state as { messages?: BaseMessage[] }).messages ?? [];
          if (current?.sha256 && latestReadMark(messages, current.virtualPath) !== current.sha256) {
            options.logger?.info(`refused ${name} of ${current.virtualPath}: not read at its current version`);
            return new ToolMessage({
              content: readFirstMessage(name, current.virtualPath),
              name,
              tool_call_id: request.toolCall.id ?? "",
              status: "error",
            });
          }
        }
        const result = await handler(request);
        await stamp(result, args, request.state, configurable);
        return result;
      });
    },
  });
}

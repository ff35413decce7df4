/**
 * A temp-dir sandbox for tests: a throwaway home, a provider of the requested kind, the sandbox tool
 * set, and a `call` helper that invokes a tool the way the agent's tool node does (a tool call plus a
 * runtime with state and `configurable.thread_id`). Tests of the tools, the middlewares and the
 * hostile-path suite share it, so they all exercise the same wiring.
 */
import path from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { Command } from "@langchain/langgraph";
import { createSandboxTools } from "../tools/sandbox-tools.js";
import type { SandboxToolLimits } from "../tools/limits.js";
import { createSandboxProvider, type SandboxProviderOptions } from "../sandbox/provider.js";
import type { Sandbox, SandboxProvider } from "../sandbox/sandbox.js";
import { findExecutable, probeBwrap } from "../sandbox/bwrap-sandbox.js";
import { writeSandboxEtc } from "../sandbox/bwrap-args.js";
import { createTempHome } from "./temp-home.js";

/** Options of {@link createTestSandbox}. */
export interface TestSandboxOptions extends Partial<Omit<SandboxProviderOptions, "home">> {
  threadId?: string;
  limits?: Partial<SandboxToolLimits>;
  vision?: boolean;
  /** Files to create under the skills directory, keyed by relative path. */
  skills?: Record<string, string>;
}

/** What {@link createTestSandbox} returns. */
export interface TestSandbox {
  home: string;
  skillsDir: string;
  threadId: string;
  provider: SandboxProvider;
  sandbox: Sandbox;
  tools: StructuredToolInterface[];
  /** Invokes a tool by name; returns the ToolMessage or Command it produced. */
  call(name: string, args: Record<string, unknown>, state?: Record<string, unknown>): Promise<ToolMessage | Command>;
  /** Like `call`, returning the text of the ToolMessage (or of the Command's message). */
  text(name: string, args: Record<string, unknown>, state?: Record<string, unknown>): Promise<string>;
  cleanup(): Promise<void>;
}

let counter = 0;

/** Builds a sandbox in a fresh temp home. Default: local provider with host bash allowed. */
export function createTestSandbox(options: TestSandboxOptions = {}): TestSandbox {
  const skillFiles = Object.entries(options.skills ?? {}).map(([relative, content]) => [
    path.join("skills", relative),
    content,
  ]);
  const temp = createTempHome({ prefix: "deerflow-sandbox-test-", files: Object.fromEntries(skillFiles) });
  const home = temp.path;
  const skillsDir = path.join(home, "skills");
  const provider = createSandboxProvider({
    use: options.use ?? "local",
    home,
    skillsPath: options.skillsPath === undefined ? skillsDir : options.skillsPath,
    ...(options.skillsContainerPath ? { skillsContainerPath: options.skillsContainerPath } : {}),
    allowHostBash: options.allowHostBash ?? true,
    bashTimeoutSeconds: options.bashTimeoutSeconds ?? 30,
    bashOutputMaxChars: options.bashOutputMaxChars ?? 20_000,
    ...(options.hostEnv ? { hostEnv: options.hostEnv } : {}),
    ...(options.mounts ? { mounts: options.mounts } : {}),
  });
  const threadId = options.threadId ?? "test-thread";
  const sandbox = provider.get(provider.acquire(threadId))!;
  const tools = createSandboxTools({ provider, limits: options.limits ?? {}, vision: options.vision ?? true });
  const call: TestSandbox["call"] = async (name, args, state = {}) => {
    const found = tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no tool named ${name}; have ${tools.map((candidate) => candidate.name).join(", ")}`);
    counter += 1;
    const id = `call-${process.pid}-${counter}`;
    return (await found.invoke({ name, args, id, type: "tool_call" }, {
      configurable: { thread_id: threadId },
      toolCallId: id,
      state,
    } as never)) as ToolMessage | Command;
  };
  return {
    home,
    skillsDir,
    threadId,
    provider,
    sandbox,
    tools,
    call,
    async text(name, args, state) {
      return resultText(await call(name, args, state));
    },
    async cleanup() {
      await provider.shutdown();
      temp.cleanup();
    },
  };
}

/** The text a tool result shows the model. */
export function resultText(result: ToolMessage | Command): string {
  if ("tool_call_id" in result)
    return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
  const update = result.update as { messages?: ToolMessage[] } | undefined;
  const message = update?.messages?.[0];
  return message ? resultText(message) : JSON.stringify(update);
}

/** Null when bubblewrap works on this machine, else the reason (tests print it when they skip). */
export function bwrapUnavailableReason(): string | null {
  const bwrap = findExecutable("bwrap", process.env.PATH);
  if (!bwrap) return "bwrap is not installed (run: bash scripts/setup-bwrap.sh)";
  const etc = createTempHome({ prefix: "deerflow-bwrap-check-" });
  try {
    writeSandboxEtc(etc.path);
    const probe = probeBwrap(bwrap, etc.path);
    return probe.ok ? null : probe.reason;
  } finally {
    etc.cleanup();
  }
}

/**
 * The setup the large-value tests share (SQLite and Postgres): a temp home, a config with every optional
 * middleware off so only the store's behaviour shows, and a scripted model that calls one tool on a
 * turn's first step and answers on the next.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createHarness } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel, type ScriptStepFunction } from "../../src/testing/index.js";

/** A model step: the tool call when the turn has no tool result yet, then `answer`. */
export function callOnceThenAnswer(name: string, args: Record<string, unknown>, answer: string): ScriptStepFunction {
  return (messages) =>
    messages.at(-1)!.getType() === "human" && !messages.some((m) => m.getType() === "tool")
      ? { tool_calls: [{ name, args }] }
      : { content: answer };
}

/** Opens a harness for one large-value test; `close()` closes it and removes its home. */
export async function openLargeValueHarness(setup: {
  chatModel: ScriptedChatModel;
  tools?: StructuredToolInterface[];
  retention?: "all" | "latest";
  /** A Postgres URL for `database.backend: postgres`; SQLite when absent. */
  postgresUrl?: string;
}) {
  const home = createTempHome();
  const database = setup.postgresUrl ? `database: {backend: postgres, url: '${setup.postgresUrl}'}\n` : "";
  const config = parseConfigText(
    `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nsummarization: {enabled: false}\ncheckpoints: {retention: ${setup.retention ?? "all"}}\n${database}`,
    { source: null, env: {} },
  );
  const harness = await createHarness(config, {
    home: home.path,
    env: {},
    chatModel: setup.chatModel,
    tools: setup.tools,
    onWarning: () => {},
  });
  return {
    harness,
    agent: harness.agent(),
    thread: { configurable: { thread_id: "t1" } },
    async close() {
      await harness.close();
      home.cleanup();
    },
  };
}

/** A model that follows `step` on every call. */
export function loopingModel(step: ScriptStepFunction): ScriptedChatModel {
  return new ScriptedChatModel([step], { loop: true });
}

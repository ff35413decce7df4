/**
 * Replays DeerFlow's recorded real-model run (gpt-5, `write_read_file`, ultra mode): the lead agent's
 * recorded outputs are fed, in order, to a scripted model, and the harness must do what DeerFlow did:
 * write the file, read it back, and answer with its contents.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { AIMessage } from "@langchain/core/messages";
import { parseConfigText } from "../src/config/load-config.js";
import { createLeadAgent } from "../src/agent/create-lead-agent.js";
import { threadPaths } from "../src/sandbox/virtual-paths.js";
import { createTempHome, ScriptedChatModel } from "../src/testing/index.js";

interface RecordedTurn {
  caller: string;
  output: { data: { id: string; content: string; tool_calls: { id: string; name: string; args: Record<string, unknown> }[] } };
}
const fixture = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures/write_read_file.ultra.json"), "utf8")) as {
  prompt: string;
  context: { is_plan_mode: boolean; subagent_enabled: boolean };
  turns: RecordedTurn[];
};

test("the recorded write_read_file run replays to the same file and answer", async () => {
  const home = createTempHome();
  const outputs = fixture.turns
    .filter((turn) => turn.caller === "lead_agent")
    .map(({ output: { data } }) => new AIMessage({ id: data.id, content: data.content, tool_calls: data.tool_calls.map((call) => ({ ...call, type: "tool_call" as const })) }));
  const model = new ScriptedChatModel(outputs);
  const config = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\n", { source: null, env: {} });
  const agent = await createLeadAgent(config, {
    home: home.path,
    env: {},
    chatModel: model,
    is_plan_mode: fixture.context.is_plan_mode,
    subagent_enabled: fixture.context.subagent_enabled,
    onWarning: () => {},
  });
  try {
    const result = await agent.invoke({ messages: [{ role: "user", content: fixture.prompt }] }, { configurable: { thread_id: "replay" } });
    const file = path.join(threadPaths(home.path, "replay").outputs_path, "note.txt");
    assert.equal(readFileSync(file, "utf8"), "hi from replay.");
    const readBack = result.messages.find((message) => message.getType() === "tool" && (message as { name?: string }).name === "read_file");
    assert.equal(readBack?.content, "hi from replay.");
    assert.equal(result.messages.at(-1)!.content, "hi from replay.");
    model.assertDone();
  } finally {
    await agent.close();
    home.cleanup();
  }
});

/**
 * Replays DeerFlow's recorded real-model run (gpt-5, `write_read_file`, ultra mode): the lead agent's
 * recorded outputs are fed, in order, to a scripted model driving the full lead agent, which must do
 * what DeerFlow did under both sandbox providers: write the file, read it back, answer with its contents.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { AIMessage } from "@langchain/core/messages";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { threadPaths } from "../../src/sandbox/virtual-paths.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";

interface RecordedTurn {
  caller: string;
  output: {
    data: { id: string; content: string; tool_calls: { id: string; name: string; args: Record<string, unknown> }[] };
  };
}
const fixture = JSON.parse(readFileSync(new URL("./fixtures/write_read_file.ultra.json", import.meta.url), "utf8")) as {
  prompt: string;
  context: { is_plan_mode: boolean; subagent_enabled: boolean };
  turns: RecordedTurn[];
};

function bwrapWorks(): boolean {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

for (const use of ["local", "bwrap"] as const) {
  const skip =
    use === "bwrap" && !bwrapWorks()
      ? "bubblewrap is not installed or cannot run here (scripts/setup-bwrap.sh installs it)"
      : false;
  test(`the recorded write_read_file run replays to the same file and answer (${use})`, { skip }, async () => {
    const home = createTempHome();
    const outputs = fixture.turns
      .filter((turn) => turn.caller === "lead_agent")
      .map(
        ({ output: { data } }) =>
          new AIMessage({
            id: data.id,
            content: data.content,
            tool_calls: data.tool_calls.map((call) => ({ ...call, type: "tool_call" as const })),
          }),
      );
    const model = new ScriptedChatModel(outputs);
    const config = parseConfigText(`sandbox: {use: ${use}}\nmemory: {enabled: false}\n`, { source: null, env: {} });
    const agent = await createLeadAgent(config, {
      home: home.path,
      env: {},
      chatModel: model,
      is_plan_mode: fixture.context.is_plan_mode,
      subagent_enabled: fixture.context.subagent_enabled,
      onWarning: () => {},
    });
    try {
      assert.equal(agent.deerflow.sandbox.kind, use);
      const result = await agent.invoke(
        { messages: [{ role: "user", content: fixture.prompt }] },
        { configurable: { thread_id: "replay" } },
      );
      const file = path.join(threadPaths(home.path, "replay").outputs_path, "note.txt");
      assert.equal(readFileSync(file, "utf8"), "hi from replay.");
      const readBack = result.messages.find(
        (message) => message.getType() === "tool" && (message as { name?: string }).name === "read_file",
      );
      assert.equal(readBack?.content, "hi from replay.");
      assert.equal(result.messages.at(-1)!.content, "hi from replay.");
      model.assertDone();
    } finally {
      await agent.close();
      home.cleanup();
    }
  });
}

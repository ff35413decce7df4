/**
 * Replay of a real DeerFlow run: the `lead_agent` outputs recorded from gpt-5 are fed, in order, to a
 * scripted model driving our tools and middlewares. The harness must write the note, read it back,
 * and end with the recorded answer, exactly as DeerFlow's harness did.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { threadDataMiddleware } from "../../src/middleware/thread-data.js";
import { uploadsMiddleware } from "../../src/middleware/uploads.js";
import { sandboxMiddleware } from "../../src/middleware/sandbox.js";
import { createTestSandbox } from "../../src/sandbox/testing.js";
import { resolveVirtualPath } from "../../src/sandbox/path-policy.js";
import { ThreadStateSchema } from "../../src/state/thread-state.js";
import { ScriptedChatModel } from "../../src/testing/scripted-model.js";

interface RecordedTurn {
  caller: string;
  output: { data: { content: string; tool_calls: Array<{ name: string; args: Record<string, unknown>; id: string }> } };
}

const fixture = JSON.parse(fs.readFileSync(new URL("./fixtures/write_read_file.ultra.json", import.meta.url), "utf8")) as {
  prompt: string;
  turns: RecordedTurn[];
};

for (const use of ["local", "bwrap"] as const) {
  test(`replaying the recorded write_read_file run writes, reads back and answers (${use})`, async (t) => {
    const kit = createTestSandbox({ use: use === "bwrap" ? "auto" : "local", threadId: "replay-thread" });
    t.after(() => kit.cleanup());
    if (use === "bwrap" && kit.provider.kind !== "bwrap") {
      t.skip(`bubblewrap not usable: ${kit.provider.reason}`);
      return;
    }
    const leadTurns = fixture.turns.filter((turn) => turn.caller === "lead_agent");
    const model = new ScriptedChatModel(
      leadTurns.map((turn, index) => ({
        id: `replay-${use}-${index}`,
        content: turn.output.data.content,
        tool_calls: turn.output.data.tool_calls.map(({ name, args, id }) => ({ name, args, id })),
      })),
    );
    const agent = createAgent({
      model,
      tools: kit.tools,
      stateSchema: ThreadStateSchema,
      middleware: [threadDataMiddleware({ home: kit.home }), uploadsMiddleware({ home: kit.home }), sandboxMiddleware({ provider: kit.provider })],
      checkpointer: new MemorySaver(),
    });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: fixture.prompt }] },
      { configurable: { thread_id: kit.threadId } },
    );
    model.assertDone();

    const hostNote = resolveVirtualPath(kit.home, kit.threadId, "/mnt/user-data/outputs/note.txt");
    assert.equal(fs.readFileSync(hostNote, "utf8"), "hi from replay.");
    const messages = result.messages as BaseMessage[];
    const toolResults = messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    assert.deepEqual(toolResults.map((message) => [message.name, message.content]), [
      ["write_file", "OK"],
      ["read_file", "hi from replay."],
    ]);
    const last = messages.at(-1)!;
    assert.ok(AIMessage.isInstance(last));
    assert.equal(last.content, "hi from replay.");
    assert.deepEqual(result.sandbox, { sandbox_id: "sandbox:replay-thread" });
    assert.equal(result.thread_data?.outputs_path, `${kit.home}/threads/replay-thread/user-data/outputs`);
  });
}

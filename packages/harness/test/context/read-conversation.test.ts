/**
 * read_conversation: a conversation the user references with a message is named to the model, which
 * reads it by id; a missing thread, this thread, a fourth thread in one request and a thread the
 * access check refuses each get one line, and a named user reads nothing without the server's check.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { createHarness } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";

const config = parseConfigText("sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\n", {
  source: null,
  env: {},
});
const reads = (ids: string[]) => ({
  tool_calls: ids.map((thread_id) => ({ name: "read_conversation", args: { thread_id } })),
});

test("a referenced conversation is named in the request and read by id, within bounds", async () => {
  const home = createTempHome();
  const chatModel = new ScriptedChatModel([
    { content: "Noted: the launch codename is Bluebird." },
    reads(["pricing", "missing", "current", "pricing"]),
    reads(["a", "b", "c"]),
    { content: "Bluebird." },
  ]);
  const harness = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {} });
  try {
    const agent = harness.agent();
    assert.ok(agent.deerflow.toolNames.includes("read_conversation"));
    const names = agent.deerflow.middlewareNames;
    assert.equal(names.indexOf("conversation-refs"), names.indexOf("durable-context") - 1);
    await agent.invoke(
      { messages: [{ role: "user", content: "The launch codename is Bluebird </conversation>." }] },
      { configurable: { thread_id: "pricing" } },
    );
    const out = await agent.invoke(
      {
        messages: [
          new HumanMessage({
            content: "What was the codename?",
            additional_kwargs: { conversation_refs: [{ thread_id: "pricing", title: "Launch <plan>" }] },
          }),
        ],
      },
      { configurable: { thread_id: "current" } },
    );
    const sent = chatModel.calls[1]!.messages.map((m) => String(m.content)).join("\n");
    assert.match(sent, /<referenced_conversations>[\s\S]*- pricing: Launch &lt;plan&gt;\n<\/referenced_conversations>/);

    const results = out.messages.filter((m) => m.type === "tool") as ToolMessage[];
    const text = results.map((m) => String(m.content));
    assert.match(
      text[0]!,
      /^<conversation thread_id="pricing">\nuser: The launch codename is Bluebird &lt;\/conversation&gt;\.\nassistant: Noted/,
    );
    assert.match(text[1]!, /^Error: no conversation "missing" of this user was found/);
    assert.match(text[2]!, /^That is this conversation/);
    assert.match(text[3]!, /^<conversation thread_id="pricing">/, "the same thread again does not count twice");
    // a, b and c are not threads, but each is a fourth distinct one after pricing, missing and current.
    assert.ok(
      text.slice(4).every((line) => /^Error: at most 3 other conversations/.test(line)),
      text.slice(4).join("\n"),
    );
    const saved = (await agent.graph.getState({ configurable: { thread_id: "current" } })).values.messages as unknown[];
    assert.ok(!JSON.stringify(saved).includes("referenced_conversations>"), "the block is request-only");
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("a named user reads nothing by default, and what the installed access check allows", async () => {
  const home = createTempHome();
  const chatModel = new ScriptedChatModel([
    { content: "ok" },
    reads(["alice-thread"]),
    { content: "refused" },
    reads(["alice-thread"]),
    { content: "read" },
  ]);
  const harness = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {} });
  try {
    await harness
      .agent({ user_id: "alice" })
      .invoke(
        { messages: [{ role: "user", content: "secret plan" }] },
        { configurable: { thread_id: "alice-thread" } },
      );
    const bob = harness.agent({ user_id: "bob" });
    const denied = await bob.invoke(
      { messages: [{ role: "user", content: "read it" }] },
      { configurable: { thread_id: "b1" } },
    );
    assert.match(
      String(denied.messages.at(-2)!.content),
      /^Error: no conversation "alice-thread" of this user was found/,
    );

    harness.setThreadAccess((threadId, userId) => threadId === "alice-thread" && userId === "bob");
    const allowed = await bob.invoke(
      { messages: [{ role: "user", content: "read it" }] },
      { configurable: { thread_id: "b1" } },
    );
    assert.match(String(allowed.messages.at(-2)!.content), /user: secret plan/);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemorySaver } from "@langchain/langgraph";
import { AIMessage, HumanMessage, createAgent } from "langchain";
import { contentText } from "../messages/content.js";
import { formatMemoryForDisplay } from "./display.js";
import { createMemoryService } from "./memory-service.js";
import { tempHome } from "../testing/temp-home.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { type FakeStep, startFakeOpenAIServer } from "../testing/fake-openai-server.js";
import { createHarness } from "../agent/harness.js";
import { parseConfigText } from "../config/load-config.js";

let n = 0;
const ai = (content: string) => new AIMessage({ content, id: `svc-ai-${++n}` });
const human = (content: string) => new HumanMessage({ content, id: `svc-h-${++n}` });

const acmeUpdate = JSON.stringify({
  user: { workContext: { summary: "Works at Acme on payment APIs.", shouldUpdate: true } },
  newFacts: [
    { content: "Works at Acme on payment APIs", category: "context", confidence: 0.95 },
    { content: "Prefers TypeScript", category: "preference", confidence: 0.9 },
  ],
});

/** One `deerflow run`: a fresh service (as in a new process), the agent with its prompt block, then what the CLI does at exit: flush, close. */
async function run(
  home: string,
  task: string,
  options: { agentName?: string; memoryReply?: string; answer: string; threadId: string },
) {
  const memoryModel = new ScriptedChatModel(options.memoryReply ? [ai(options.memoryReply)] : []);
  const warnings: string[] = [];
  const memory = createMemoryService({
    home,
    agentName: options.agentName,
    model: memoryModel,
    settings: { debounceSeconds: 30 },
    onWarning: (m) => warnings.push(m),
  });
  const agentModel = new ScriptedChatModel([ai(options.answer)]);
  const agent = createAgent({
    model: agentModel,
    tools: [],
    systemPrompt: `You are DeerFlow.\n${memory.promptBlock()}`,
    middleware: [memory.middleware()],
    checkpointer: new MemorySaver(),
  });
  await agent.invoke({ messages: [human(task)] }, { configurable: { thread_id: options.threadId } });
  const pendingBeforeClose = memory.queue.pending();
  await memory.flush();
  await memory.close();
  const systemPrompt = contentText(agentModel.calls[0]?.messages[0]?.content ?? "", "\n");
  return { memory, memoryModel, systemPrompt, pendingBeforeClose, warnings };
}

test("what the user said in one run is in the next run's system prompt and in `memory show`", async (t) => {
  const home = tempHome(t);
  const first = await run(home, "I work at Acme on payment APIs and prefer TypeScript", {
    memoryReply: acmeUpdate,
    answer: "Noted.",
    threadId: "thread-1",
  });
  assert.equal(first.pendingBeforeClose, 1, "queued, debounced, and processed by flush() before exit");
  assert.equal(first.memoryModel.callCount, 1);
  assert.doesNotMatch(first.systemPrompt, /<memory>/, "nothing known yet");
  assert.deepEqual(first.warnings, []);
  assert.ok(fs.existsSync(path.join(home, "memory.json")));

  const second = await run(home, "what do you know about me?", {
    memoryReply: "{}",
    answer: "You work at Acme.",
    threadId: "thread-2",
  });
  assert.match(
    second.systemPrompt,
    /<memory>\nUser Context:\n- Work: Works at Acme on payment APIs\.[\s\S]*- \[preference \| 0\.90\] Prefers TypeScript\n<\/memory>/,
  );

  const shown = formatMemoryForDisplay(second.memory.store.load(), second.memory.path);
  assert.match(shown, /Facts \(2\)/);
  assert.match(shown, /fact_\w+ {2}\[preference 0\.90\] {2}Prefers TypeScript {2}\(from thread-1, \d{4}-\d{2}-\d{2}\)/);
});

test("memory of one agent name is not visible to another (nor to the default agent)", async (t) => {
  const home = tempHome(t);
  await run(home, "I work at Acme on payment APIs and prefer TypeScript", {
    agentName: "Researcher",
    memoryReply: acmeUpdate,
    answer: "Noted.",
    threadId: "t1",
  });
  assert.ok(fs.existsSync(path.join(home, "agents", "researcher", "memory.json")));

  const other = await run(home, "what do you know about me?", {
    agentName: "writer",
    memoryReply: "{}",
    answer: "Nothing yet.",
    threadId: "t2",
  });
  assert.doesNotMatch(other.systemPrompt, /<memory>|Acme/);
  const main = await run(home, "what do you know about me?", {
    memoryReply: "{}",
    answer: "Nothing yet.",
    threadId: "t3",
  });
  assert.doesNotMatch(main.systemPrompt, /<memory>|Acme/);
  const same = await run(home, "what do you know about me?", {
    agentName: "researcher",
    memoryReply: "{}",
    answer: "Acme.",
    threadId: "t4",
  });
  assert.match(same.systemPrompt, /Prefers TypeScript/);
});

test("with memory disabled nothing is queued or injected; with injection off memory still learns", async (t) => {
  const home = tempHome(t);
  const model = new ScriptedChatModel([ai(acmeUpdate)]);
  const off = createMemoryService({ home, model, settings: { enabled: false } });
  const agent = createAgent({
    model: new ScriptedChatModel([ai("ok")]),
    tools: [],
    middleware: [off.middleware()],
    checkpointer: new MemorySaver(),
  });
  await agent.invoke({ messages: [human("I prefer TypeScript")] }, { configurable: { thread_id: "t" } });
  assert.equal(off.queue.pending(), 0);
  await off.close();
  assert.equal(model.callCount, 0);

  const learning = createMemoryService({ home, model, settings: { injectionEnabled: false } });
  learning.queue.enqueue("t", [
    { role: "user", content: "I prefer TypeScript" },
    { role: "assistant", content: "ok" },
  ]);
  await learning.flush();
  assert.equal(learning.store.load().facts.length, 2);
  assert.equal(learning.promptBlock(), "");
  assert.match(createMemoryService({ home, model, settings: {} }).promptBlock(), /Prefers TypeScript/);
});

test("settings reach the parts: storagePath, maxInjectionTokens", async (t) => {
  const home = tempHome(t);
  const model = new ScriptedChatModel([ai(acmeUpdate)]);
  const service = createMemoryService({ home, model, settings: { storagePath: "mem", maxInjectionTokens: 12 } });
  assert.equal(service.path, path.join(home, "mem", "memory.json"));
  service.queue.enqueue("t", [
    { role: "user", content: "I work at Acme on payment APIs and prefer TypeScript" },
    { role: "assistant", content: "ok" },
  ]);
  await service.flush();
  assert.match(service.promptBlock(), /Memory truncated to fit 12 tokens/);
});

test("an unreadable memory file never breaks the prompt: it is set aside with a warning", (t) => {
  const home = tempHome(t);
  fs.writeFileSync(path.join(home, "memory.json"), "\u0000\u0000garbage");
  const warnings: string[] = [];
  const service = createMemoryService({ home, model: new ScriptedChatModel([]), onWarning: (m) => warnings.push(m) });
  assert.equal(service.promptBlock(), "");
  assert.match(warnings[0] ?? "", /moved to .*memory\.json\.corrupt-/);
});

test("an update made while the run still streams never shows in the run's messages stream", async (t) => {
  const home = tempHome(t);
  // The title call (after the memory hook) is answered only once the memory update was, so the update
  // runs while the graph is still streaming, inside its context (the queue's timer inherits it).
  let memoryAnswered: () => void = () => {};
  const answered = new Promise<void>((resolve) => (memoryAnswered = resolve));
  const server = await startFakeOpenAIServer({
    script: async (body): Promise<FakeStep> => {
      const sent = JSON.stringify(body.messages);
      if (sent.includes("long-term memory")) {
        setImmediate(memoryAnswered);
        return { content: JSON.stringify({ newFacts: [{ content: "Drinks MEMORYTOKEN tea", confidence: 0.9 }] }) };
      }
      if (!body.tools?.length) {
        await answered;
        return { content: "Tea" };
      }
      return { content: "Noted." };
    },
  });
  const config = parseConfigText(
    `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk, base_url: '${server.url}', max_retries: 0}\nsandbox: {use: local}\nmemory: {debounce_seconds: 0}\n`,
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home, env: {}, checkpointer: false, onWarning: () => {} });
  try {
    const stream = await harness.agent({}).stream({ messages: [{ role: "user", content: "I drink tea" }] } as never, {
      configurable: { thread_id: "t1" },
      streamMode: ["messages"] as const,
    });
    const streamed: string[] = [];
    for await (const [, [message]] of stream as unknown as AsyncIterable<[string, [{ content: unknown }]]>)
      streamed.push(typeof message.content === "string" ? message.content : JSON.stringify(message.content));
    assert.ok(streamed.join("").includes("Noted"), "the answer streamed");
    assert.ok(server.requests.some((body) => JSON.stringify(body.messages).includes("long-term memory")));
    assert.doesNotMatch(streamed.join(""), /MEMORYTOKEN/);
  } finally {
    await harness.close();
    await server.close();
  }
});

import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage } from "langchain";
import { renderMemoryBlock } from "./inject.js";
import type { MemoryTurn } from "./conversation-filter.js";
import { emptyMemory } from "./memory-schema.js";
import { createMemoryStore } from "./memory-store.js";
import { createMemoryUpdater } from "./memory-updater.js";
import { tempHome } from "../testing/temp-home.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

let n = 0;
const reply = (content: string) => new AIMessage({ content, id: `memory-reply-${++n}` });

const acme: MemoryTurn[] = [
  { role: "user", content: "I work at Acme on payment APIs and prefer TypeScript" },
  { role: "assistant", content: "Got it. I'll use TypeScript for examples." },
];

const acmeUpdate = {
  user: { workContext: { summary: "Works at Acme on payment APIs.", shouldUpdate: true } },
  newFacts: [
    { content: "Works at Acme on payment APIs", category: "context", confidence: 0.95 },
    { content: "Prefers TypeScript", category: "preference", confidence: 0.9 },
    { content: "Might be a team lead", category: "context", confidence: 0.5 },
  ],
};

function setup(t: { after: (fn: () => void) => void }) {
  const dir = tempHome(t, { prefix: "memory-updater-" });
  const file = path.join(dir, "memory.json");
  const warnings: string[] = [];
  return { file, warnings, store: createMemoryStore(file, { onWarning: (message) => warnings.push(message) }) };
}

test("a conversation about work and preferences ends up as facts in memory.json and in the memory block", async (t) => {
  const { file, store, warnings } = setup(t);
  const model = new ScriptedChatModel([reply(`\`\`\`json\n${JSON.stringify(acmeUpdate, null, 2)}\n\`\`\``)]);
  const updater = createMemoryUpdater({ model, store, onWarning: (message) => warnings.push(message) });

  const outcome = await updater.update(acme, { threadId: "thread-1" });

  assert.deepEqual(outcome, {
    applied: true,
    retry: false,
    added: 2,
    removed: 0,
    reinforced: 0,
    sectionsUpdated: ["workContext"],
  });
  const onDisk = JSON.parse(fs.readFileSync(file, "utf8"));
  assert.deepEqual(
    onDisk.facts.map((fact: { content: string }) => fact.content),
    ["Works at Acme on payment APIs", "Prefers TypeScript"],
  );
  assert.deepEqual(
    onDisk.facts.map((fact: { source: string }) => fact.source),
    ["thread-1", "thread-1"],
  );
  assert.equal(onDisk.userContext.workContext.summary, "Works at Acme on payment APIs.");
  const block = renderMemoryBlock(store.load(), { maxTokens: 2000 });
  assert.match(block, /- \[preference \| 0\.90\] Prefers TypeScript/);
  assert.match(block, /- Work: Works at Acme on payment APIs\./);
  assert.deepEqual(warnings, []);

  // The model saw the conversation and the instructions.
  const [system, human] = model.calls[0]?.messages ?? [];
  assert.match(String(system?.content), /long-term memory/);
  assert.match(
    String(human?.content),
    /<conversation>\nUser: I work at Acme on payment APIs and prefer TypeScript\n\nAssistant: Got it/,
  );
});

test("the model is shown the current memory, and its factsToRemove take effect", async (t) => {
  const { store } = setup(t);
  store.save({
    ...emptyMemory(),
    facts: [
      {
        id: "fact_pip",
        content: "Uses pip",
        category: "behavior",
        confidence: 0.9,
        createdAt: "2026-01-01",
        source: "t0",
      },
    ],
  });
  const model = new ScriptedChatModel([
    reply(
      JSON.stringify({
        factsToRemove: [{ id: "fact_pip" }],
        newFacts: [{ content: "Uses uv, not pip", category: "correction", confidence: 0.95 }],
      }),
    ),
  ]);
  const updater = createMemoryUpdater({ model, store });

  await updater.update(
    [
      { role: "user", content: "I switched from pip to uv" },
      { role: "assistant", content: "Noted." },
    ],
    { threadId: "t2" },
  );

  assert.match(String(model.calls[0]?.messages[1]?.content), /"id": "fact_pip"/);
  assert.deepEqual(
    store.load().facts.map((fact) => fact.content),
    ["Uses uv, not pip"],
  );
});

test("a correction signal puts its hint into the prompt, and the correction is stored with what was wrong", async (t) => {
  const { store } = setup(t);
  const model = new ScriptedChatModel([
    reply(
      JSON.stringify({
        newFacts: [
          {
            content: "Install Python packages with uv",
            category: "correction",
            confidence: 0.97,
            sourceError: "Used pip",
          },
        ],
      }),
    ),
    reply("{}"),
  ]);
  const updater = createMemoryUpdater({ model, store });
  const turns: MemoryTurn[] = [
    { role: "user", content: "That's wrong, I never use pip. Use uv." },
    { role: "assistant", content: "Sorry, switching to uv." },
  ];

  await updater.update(turns, { threadId: "t3", signals: ["correction"] });
  await updater.update(turns, { threadId: "t3" });

  const [withSignal, without] = model.calls.map((call) => String(call.messages[0]?.content));
  assert.match(withSignal!, /The user corrected the assistant in this conversation/);
  assert.doesNotMatch(without!, /The user corrected the assistant/);
  assert.deepEqual(
    store.load().facts.map(({ content, category, sourceError }) => ({ content, category, sourceError })),
    [{ content: "Install Python packages with uv", category: "correction", sourceError: "Used pip" }],
  );
  assert.match(
    renderMemoryBlock(store.load(), { maxTokens: 2000 }),
    /Install Python packages with uv \(not: Used pip\)/,
  );
});

test("a reinforcement signal lets the model confirm a stored fact instead of restating it", async (t) => {
  const { store } = setup(t);
  store.save({
    ...emptyMemory(),
    facts: [
      {
        id: "fact_tabs",
        content: "Prefers tabs",
        category: "preference",
        confidence: 0.85,
        createdAt: "2026-01-01",
        source: "t0",
      },
    ],
  });
  const confirm = JSON.stringify({ factsToReinforce: [{ id: "fact_tabs", reason: "asked for tabs again" }] });
  const model = new ScriptedChatModel([reply(confirm), reply(confirm)]);
  const updater = createMemoryUpdater({ model, store });
  const turns: MemoryTurn[] = [
    { role: "user", content: "Yes, exactly right, tabs as always." },
    { role: "assistant", content: "Great." },
  ];

  const unconfirmed = await updater.update(turns, { threadId: "t4" });
  assert.equal(unconfirmed.reinforced, 0, "without the signal the model's claim is not taken");
  const outcome = await updater.update(turns, { threadId: "t4", signals: ["reinforcement"] });

  assert.match(String(model.calls[1]?.messages[0]?.content), /The user confirmed the assistant's approach/);
  assert.equal(outcome.reinforced, 1);
  const [stored] = store.load().facts;
  assert.equal(store.load().facts.length, 1);
  assert.equal(stored?.confirmationCount, 1);
  assert.ok(stored?.lastConfirmedAt);
});

test("malformed JSON, a wrong shape or a failing model leave memory unchanged and warn", async (t) => {
  const { file, store } = setup(t);
  store.save({
    ...emptyMemory(),
    facts: [
      {
        id: "fact_1",
        content: "Prefers TypeScript",
        category: "preference",
        confidence: 0.9,
        createdAt: "2026-01-01",
        source: "t0",
      },
    ],
  });
  const before = fs.readFileSync(file, "utf8");
  const model = new ScriptedChatModel([
    reply('{"newFacts": [{"content": "x", "confidence": 0.9}'),
    reply('{"newFacts": "Prefers Rust"}'),
    reply("Nothing to remember."),
    new Error("429 Too Many Requests"),
  ]);
  const warnings: string[] = [];
  const updater = createMemoryUpdater({ model, store, onWarning: (message) => warnings.push(message) });

  const retries: boolean[] = [];
  for (let i = 0; i < 4; i += 1) {
    const outcome = await updater.update(acme, { threadId: `t${i}` });
    assert.equal(outcome.applied, false);
    retries.push(outcome.retry);
  }

  assert.equal(fs.readFileSync(file, "utf8"), before);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0] ?? "", /thread t0 skipped: the reply is not valid JSON.*Memory is unchanged/);
  assert.match(warnings[1] ?? "", /wrong shape at newFacts/);
  assert.match(warnings[2] ?? "", /no JSON object/);
  assert.match(warnings[3] ?? "", /memory model failed \(429 Too Many Requests\).*stays queued/);
  assert.deepEqual(retries, [false, false, false, true], "only the model's failure may pass: worth retrying");
});

test("a conversation without a user message is not sent to the model", async (t) => {
  const { store } = setup(t);
  const model = new ScriptedChatModel([]);
  const updater = createMemoryUpdater({ model, store });
  const outcome = await updater.update([{ role: "assistant", content: "Hello!" }], { threadId: "t" });
  assert.equal(outcome.applied, false);
  assert.equal(model.callCount, 0);
});

test("the threshold and maxFacts options are applied", async (t) => {
  const { store } = setup(t);
  const model = new ScriptedChatModel([reply(JSON.stringify(acmeUpdate))]);
  const updater = createMemoryUpdater({ model, store, factConfidenceThreshold: 0.4, maxFacts: 2 });
  await updater.update(acme, { threadId: "t" });
  assert.deepEqual(
    store.load().facts.map((fact) => fact.content),
    ["Works at Acme on payment APIs", "Prefers TypeScript"],
  );
});

test("an update lands on the memory as it is when the model answers, keeping another process's changes", async (t) => {
  const { file, store } = setup(t);
  const other = createMemoryStore(file);
  const model = new ScriptedChatModel([
    () => {
      // While the model "thinks", another process adds a fact.
      other.update((memory) => ({
        ...memory,
        facts: [
          ...memory.facts,
          {
            id: "fact_other",
            content: "Lives in Lyon",
            category: "context",
            confidence: 0.9,
            createdAt: "",
            source: "t9",
          },
        ],
      }));
      return reply(JSON.stringify(acmeUpdate));
    },
  ]);
  await createMemoryUpdater({ model, store }).update(acme, { threadId: "t1" });
  assert.deepEqual(
    store.load().facts.map((fact) => fact.content),
    ["Lives in Lyon", "Works at Acme on payment APIs", "Prefers TypeScript"],
  );
});

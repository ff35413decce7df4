import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { BaseMessage } from "@langchain/core/messages";
import { createHarness, type Harness } from "../agent/harness.js";
import { parseConfigText } from "../config/load-config.js";
import { ConfigError } from "../errors.js";
import { contentText } from "../messages/content.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { tempHome } from "../testing/temp-home.js";
import { memoryJournalPath } from "./memory-journal.js";
import { openMemoryStore } from "./open-memory-store.js";

const text = (message: BaseMessage | undefined) => contentText(message?.content ?? "", "\n");
const isMemoryUpdate = (messages: BaseMessage[]) => text(messages[0]).includes("long-term memory");

/**
 * One model for the agent and its memory: an update learns "Works at X" from "I work at X"; a run answers
 * "Noted.". `prompts` are the system prompts of the agent's calls, in order.
 */
function scriptedModel() {
  const prompts: string[] = [];
  const model = new ScriptedChatModel(
    [
      (messages) => {
        if (!isMemoryUpdate(messages)) {
          prompts.push(text(messages[0]));
          return { content: "Noted." };
        }
        const employer = /I work at (\w+)/.exec(messages.map(text).join("\n"))?.[1];
        const newFacts = employer ? [{ content: `Works at ${employer}`, category: "context", confidence: 0.95 }] : [];
        return { content: JSON.stringify({ newFacts }) };
      },
    ],
    { loop: true },
  );
  return { model, prompts };
}

const config = (yaml = "") => parseConfigText(`title: {enabled: false}\n${yaml}`, { source: null, env: {} });

async function openHarness(home: string, model: ScriptedChatModel, yaml = ""): Promise<Harness> {
  return createHarness(config(yaml), { home, env: {}, checkpointer: false, chatModel: model, onWarning: () => {} });
}

/** One run of `userId` (undefined: the local user) that ends with its memory update applied. */
async function say(harness: Harness, userId: string | undefined, threadId: string, words: string): Promise<void> {
  await harness.agent({ user_id: userId }).invoke({ messages: [{ role: "user", content: words }] } as never, {
    configurable: { thread_id: threadId },
  });
  await harness.memory(undefined, userId)?.flush();
}

const facts = (harness: Harness, userId?: string, agentName?: string) =>
  harness
    .memory(agentName, userId)
    ?.store.load()
    .facts.map((fact) => fact.content);

test("what one user tells the agent is learned into that user's memory and never reaches another user's prompt", async (t) => {
  const home = tempHome(t);
  const { model, prompts } = scriptedModel();
  const harness = await openHarness(home, model);
  try {
    await say(harness, "ann", "t-ann", "I work at Acme on payment APIs");
    await say(harness, "bob", "t-bob", "I work at Globex");
    assert.deepEqual(facts(harness, "ann"), ["Works at Acme"]);
    assert.deepEqual(facts(harness, "bob"), ["Works at Globex"]);
    assert.deepEqual(facts(harness), [], "the local user learned nothing");
    assert.ok(fs.existsSync(path.join(home, "users", "ann", "memory.json")));
    assert.equal(fs.existsSync(path.join(home, "memory.json")), false);

    await say(harness, "bob", "t-bob-2", "What do you know about me?");
    assert.match(prompts.at(-1)!, /<memory>[\s\S]*Works at Globex[\s\S]*<\/memory>/);
    assert.doesNotMatch(prompts.at(-1)!, /Acme/, "bob's prompt carries nothing of ann's");
    await say(harness, "ann", "t-ann-2", "What do you know about me?");
    assert.match(prompts.at(-1)!, /Works at Acme/);
    assert.doesNotMatch(prompts.at(-1)!, /Globex/);
    await say(harness, undefined, "t-local", "What do you know about me?");
    assert.doesNotMatch(prompts.at(-1)!, /Works at|Acme|Globex/, "nor does the local user's");

    assert.equal(
      harness.memory("Researcher", "ann")?.path,
      path.join(home, "users", "ann", "agents", "researcher", "memory.json"),
    );
    assert.deepEqual(
      openMemoryStore(config(), { home, userId: "bob" })
        .load()
        .facts.map((fact) => fact.content),
      ["Works at Globex"],
      "the memory commands and routes read the same file",
    );
  } finally {
    await harness.close();
  }
});

test("a user id that could escape the memory directory is refused before any model call", async (t) => {
  const home = tempHome(t);
  const { model } = scriptedModel();
  const harness = await openHarness(home, model);
  try {
    for (const userId of ["../ann", "", "a/b", "x".repeat(65)]) {
      assert.throws(
        () => harness.agent({ user_id: userId }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(`User id "${userId}" is not valid`),
      );
      assert.throws(() => harness.memory(undefined, userId), ConfigError);
      assert.throws(() => openMemoryStore(config(), { home, userId }), ConfigError);
    }
    assert.equal(model.callCount, 0);
    assert.equal(fs.existsSync(path.join(home, "users")), false, "nothing was created");
  } finally {
    await harness.close();
  }
});

test("with memory off, a bad user id is refused all the same", async (t) => {
  const home = tempHome(t);
  const harness = await openHarness(home, scriptedModel().model, "memory: {enabled: false}\n");
  try {
    assert.throws(() => harness.agent({ user_id: "../ann" }), ConfigError);
    assert.equal(harness.memory(undefined, "ann"), null);
  } finally {
    await harness.close();
  }
});

test("journaled conversations are learned into their own user's memory; entries without a user id into the local user's", async (t) => {
  const home = tempHome(t);
  const root = path.join(home, "mem");
  fs.mkdirSync(path.join(root, "users", "ann"), { recursive: true });
  const fixtures = path.join(import.meta.dirname, "fixtures");
  fs.copyFileSync(path.join(fixtures, "memory-pending.v1.json"), memoryJournalPath(root));
  fs.copyFileSync(
    path.join(fixtures, "memory-pending.v1.user.json"),
    memoryJournalPath(path.join(root, "users", "ann")),
  );
  const { model } = scriptedModel();
  const harness = await openHarness(home, model, "memory: {storage_path: mem}\n");
  try {
    await harness.memory()?.flush();
    await harness.memory("researcher")?.flush();
    await harness.memory(undefined, "ann")?.flush();
    await harness.memory("researcher", "ann")?.flush();
    assert.deepEqual(facts(harness), ["Works at Acme"], "the v1 entry without a user id");
    assert.deepEqual(facts(harness, "ann"), ["Works at Initech"]);
    assert.deepEqual(facts(harness, "ann", "researcher"), ["Works at Umbrella"]);
    assert.deepEqual(facts(harness, "bob"), []);
    assert.equal(fs.existsSync(memoryJournalPath(path.join(root, "users", "ann"))), false, "all learned from");
    assert.equal(fs.existsSync(memoryJournalPath(root)), false);
  } finally {
    await harness.close();
  }
});

test("a user's conversation left unlearned by one process is learned by the next into that user's memory", async (t) => {
  const home = tempHome(t);
  const first = scriptedModel();
  const harness = await openHarness(home, first.model);
  await harness.agent({ user_id: "ann" }).invoke({ messages: [{ role: "user", content: "I work at Acme" }] } as never, {
    configurable: { thread_id: "t1" },
  });
  await harness.close(); // exits before the debounce: the conversation stays in ann's journal
  assert.ok(fs.existsSync(memoryJournalPath(path.join(home, "users", "ann"))));

  const next = await openHarness(home, scriptedModel().model);
  try {
    await next.memory(undefined, "ann")?.flush();
    assert.deepEqual(facts(next, "ann"), ["Works at Acme"]);
    assert.deepEqual(facts(next), []);
  } finally {
    await next.close();
  }
});

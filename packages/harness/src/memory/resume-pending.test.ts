import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createHarness } from "../agent/harness.js";
import { parseConfigText } from "../config/load-config.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { tempHome } from "../testing/temp-home.js";
import { memoryJournalPath } from "./memory-journal.js";

/** Answers each memory update with the fact its conversation states. */
const learner = () =>
  new ScriptedChatModel(
    [
      (messages) => {
        const fact = JSON.stringify(messages.map((message) => message.content)).includes("APA")
          ? "Cites sources in APA style"
          : "Works at Acme on payment APIs";
        return { content: JSON.stringify({ newFacts: [{ content: fact, category: "context", confidence: 0.95 }] }) };
      },
    ],
    { loop: true },
  );

/** The fixture journal: one default-agent conversation (released) and one of "researcher" (held on another host, long ago). */
function journalFixture(home: string, root = home): void {
  fs.mkdirSync(root, { recursive: true });
  fs.copyFileSync(path.join(import.meta.dirname, "fixtures", "memory-pending.v1.json"), memoryJournalPath(root));
}

test("a harness opening the home learns, in the background, from every agent's journaled conversations", async (t) => {
  const home = tempHome(t);
  journalFixture(home, path.join(home, "mem"));
  const model = learner();
  const config = parseConfigText("memory: {storage_path: mem}\ntitle: {enabled: false}\n", { source: null, env: {} });
  const harness = await createHarness(config, {
    home,
    env: {},
    checkpointer: false,
    chatModel: model,
    onWarning: () => {},
  });
  try {
    await harness.memory()?.flush();
    await harness.memory("researcher")?.flush();
    assert.deepEqual(
      harness
        .memory()
        ?.store.load()
        .facts.map((fact) => [fact.content, fact.source]),
      [["Works at Acme on payment APIs", "thread-1"]],
    );
    assert.deepEqual(
      harness
        .memory("researcher")
        ?.store.load()
        .facts.map((fact) => fact.content),
      ["Cites sources in APA style"],
    );
    assert.equal(fs.existsSync(memoryJournalPath(path.join(home, "mem"))), false);
  } finally {
    await harness.close();
  }
});

test("with memory disabled the journal is left as it is, for a process that learns", async (t) => {
  const home = tempHome(t);
  journalFixture(home);
  const before = fs.readFileSync(memoryJournalPath(home), "utf8");
  const model = new ScriptedChatModel([]);
  const config = parseConfigText("memory: {enabled: false}\n", { source: null, env: {} });
  const harness = await createHarness(config, {
    home,
    env: {},
    checkpointer: false,
    chatModel: model,
    onWarning: () => {},
  });
  await harness.close();
  assert.equal(fs.readFileSync(memoryJournalPath(home), "utf8"), before);
  assert.equal(model.callCount, 0);
});

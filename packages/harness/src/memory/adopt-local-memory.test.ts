import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createHarness } from "../agent/harness.js";
import { parseConfigText } from "../config/load-config.js";
import { ConfigError } from "../errors.js";
import { contentText } from "../messages/content.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { tempHome } from "../testing/temp-home.js";
import { adoptLocalMemory } from "./adopt-local-memory.js";
import { JournalFile, memoryJournalPath } from "./memory-journal.js";
import { emptyMemory, type Memory } from "./memory-schema.js";

const config = (yaml = "") => parseConfigText(`title: {enabled: false}\n${yaml}`, { source: null, env: {} });

function memoryWith(content: string): Memory {
  const fact = {
    id: `fact_${content.length}`,
    content,
    category: "context",
    confidence: 0.95,
    createdAt: "",
    source: "t0",
  };
  return { ...emptyMemory(), facts: [fact] };
}

function writeMemory(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(memoryWith(content)));
}

const factsIn = (file: string) =>
  (JSON.parse(fs.readFileSync(file, "utf8")) as Memory).facts.map((fact) => fact.content);

test("the ownerless memory of every agent moves under the user, with the conversations waiting to be learned", (t) => {
  const home = tempHome(t);
  const root = path.join(home, "mem");
  writeMemory(path.join(root, "memory.json"), "Works at Acme");
  writeMemory(path.join(root, "agents", "researcher", "memory.json"), "Cites in APA");
  fs.mkdirSync(path.join(root, "agents", "writer")); // an agent without memory
  fs.copyFileSync(path.join(import.meta.dirname, "fixtures", "memory-pending.v1.json"), memoryJournalPath(root));

  const result = adoptLocalMemory(home, config("memory: {storage_path: mem}\n"), "admin");
  assert.deepEqual(result, {
    moved: [path.join(root, "memory.json"), path.join(root, "agents", "researcher", "memory.json")],
    kept: [],
    pending: 2,
  });
  const user = path.join(root, "users", "admin");
  assert.deepEqual(factsIn(path.join(user, "memory.json")), ["Works at Acme"]);
  assert.deepEqual(factsIn(path.join(user, "agents", "researcher", "memory.json")), ["Cites in APA"]);
  assert.equal(fs.existsSync(path.join(root, "memory.json")), false);
  assert.equal(fs.existsSync(memoryJournalPath(root)), false);
  const journal = JournalFile.parse(JSON.parse(fs.readFileSync(memoryJournalPath(user), "utf8")));
  assert.deepEqual(
    journal.entries.map((entry) => [entry.threadId, entry.agentName, entry.userId]),
    [
      ["thread-1", undefined, "admin"],
      ["thread-2", "researcher", "admin"],
    ],
  );

  assert.deepEqual(adoptLocalMemory(home, config("memory: {storage_path: mem}\n"), "admin"), {
    moved: [],
    kept: [],
    pending: 0,
  });
  assert.deepEqual(factsIn(path.join(user, "memory.json")), ["Works at Acme"], "a second run changes nothing");
});

test("a memory file the user already has is never overwritten: the ownerless one stays and is reported", (t) => {
  const home = tempHome(t);
  writeMemory(path.join(home, "memory.json"), "Works at Acme");
  writeMemory(path.join(home, "users", "admin", "memory.json"), "Works at Globex");
  writeMemory(path.join(home, "agents", "researcher", "memory.json"), "Cites in APA");
  const result = adoptLocalMemory(home, config(), "admin");
  assert.deepEqual(result.moved, [path.join(home, "agents", "researcher", "memory.json")]);
  assert.deepEqual(result.kept, [path.join(home, "memory.json")]);
  assert.deepEqual(factsIn(path.join(home, "users", "admin", "memory.json")), ["Works at Globex"]);
  assert.deepEqual(factsIn(path.join(home, "memory.json")), ["Works at Acme"]);
});

test("a home without memory adopts nothing and creates nothing; a bad user id is refused", (t) => {
  const home = tempHome(t);
  assert.deepEqual(adoptLocalMemory(home, config(), "admin"), { moved: [], kept: [], pending: 0 });
  assert.deepEqual(fs.readdirSync(home), []);
  writeMemory(path.join(home, "memory.json"), "Works at Acme");
  for (const userId of ["../admin", "", "a.b"]) {
    assert.throws(() => adoptLocalMemory(home, config(), userId), ConfigError);
  }
  assert.ok(fs.existsSync(path.join(home, "memory.json")));
  assert.deepEqual(fs.readdirSync(home), ["memory.json"]);
});

test("through the harness: the local prompt's memory becomes the user's, and a waiting conversation is learned into it", async (t) => {
  const home = tempHome(t);
  writeMemory(path.join(home, "memory.json"), "Works at Acme");
  const prompts: string[] = [];
  const model = new ScriptedChatModel(
    [
      (messages) => {
        const system = contentText(messages[0]?.content ?? "", "\n");
        if (!system.includes("long-term memory")) {
          prompts.push(system);
          return { content: "Noted." };
        }
        const learned = contentText(messages.at(-1)?.content ?? "", "\n").includes("TypeScript");
        const newFacts = learned ? [{ content: "Prefers TypeScript", category: "preference", confidence: 0.9 }] : [];
        return { content: JSON.stringify({ newFacts }) };
      },
    ],
    { loop: true },
  );
  const harness = await createHarness(config(), { home, env: {}, checkpointer: false, chatModel: model });
  try {
    const ask = async (userId: string | undefined, words: string) => {
      await harness.agent({ user_id: userId }).invoke({ messages: [{ role: "user", content: words }] } as never, {
        configurable: { thread_id: `t-${prompts.length}` },
      });
      return prompts.at(-1)!;
    };
    assert.match(await ask(undefined, "I prefer TypeScript"), /Works at Acme/);
    // The local conversation is still waiting (30 s debounce) when the memory changes hands.
    assert.equal(harness.memory()?.queue.pending(), 1);

    const result = await harness.adoptLocalMemory("admin");
    assert.deepEqual(result, { moved: [path.join(home, "memory.json")], kept: [], pending: 1 });
    await harness.memory(undefined, "admin")?.flush();
    assert.deepEqual(
      harness
        .memory(undefined, "admin")
        ?.store.load()
        .facts.map((fact) => fact.content),
      ["Works at Acme", "Prefers TypeScript"],
    );
    assert.match(await ask("admin", "What do you know?"), /Works at Acme[\s\S]*Prefers TypeScript/);
    assert.doesNotMatch(await ask(undefined, "What do you know?"), /Works at Acme|TypeScript/, "no stale graph");
    assert.equal(fs.existsSync(path.join(home, "memory.json")), false);
  } finally {
    await harness.close();
  }
});

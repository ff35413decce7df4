import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessError } from "../errors.js";
import { type Memory, emptyMemory } from "./memory-schema.js";
import { createMemoryStore } from "./memory-store.js";
import { tempHome } from "../testing/temp-home.js";

function withFact(memory: Memory, id: string, content: string): Memory {
  return {
    ...memory,
    facts: [
      ...memory.facts,
      { id, content, category: "preference", confidence: 0.9, createdAt: "2026-01-01T00:00:00.000Z", source: "t1" },
    ],
  };
}

test("a missing file reads as empty memory and nothing is created by reading", (t) => {
  const file = path.join(tempHome(t), "agents", "x", "memory.json");
  const store = createMemoryStore(file);
  assert.deepEqual(store.load(), emptyMemory());
  assert.equal(fs.existsSync(file), false);
});

test("saved memory is on disk as JSON and loads back (creating the directory)", (t) => {
  const file = path.join(tempHome(t), "agents", "x", "memory.json");
  const store = createMemoryStore(file);
  store.save(withFact(emptyMemory(), "fact_1", "Prefers TypeScript"));
  assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).facts[0].content, "Prefers TypeScript");
  assert.equal(store.load().facts[0]?.id, "fact_1");
});

test("load returns a copy: changing it does not change what the next load returns", (t) => {
  const store = createMemoryStore(path.join(tempHome(t), "memory.json"));
  store.save(withFact(emptyMemory(), "fact_1", "Prefers TypeScript"));
  store.load().facts.length = 0;
  assert.equal(store.load().facts.length, 1);
});

test("a write by another store (another process) is seen on the next load despite the cache", (t) => {
  const file = path.join(tempHome(t), "memory.json");
  const mine = createMemoryStore(file);
  const theirs = createMemoryStore(file);
  mine.save(withFact(emptyMemory(), "fact_1", "one"));
  assert.equal(mine.load().facts.length, 1); // cached now
  theirs.update((memory) => withFact(memory, "fact_2", "two"));
  assert.deepEqual(
    mine.load().facts.map((fact) => fact.id),
    ["fact_1", "fact_2"],
  );
});

test("a corrupt file is moved to memory.json.corrupt-<timestamp> with a warning, and memory starts empty", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  fs.writeFileSync(file, '{"userContext": {"workContext": {"summary": "trunc');
  const warnings: string[] = [];
  const store = createMemoryStore(file, { onWarning: (message) => warnings.push(message) });

  assert.deepEqual(store.load(), emptyMemory());
  const backups = fs.readdirSync(dir).filter((name) => name.startsWith("memory.json.corrupt-"));
  assert.equal(backups.length, 1);
  assert.match(backups[0] ?? "", /^memory\.json\.corrupt-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
  assert.equal(
    fs.readFileSync(path.join(dir, backups[0]!), "utf8"),
    '{"userContext": {"workContext": {"summary": "trunc',
  );
  assert.equal(fs.existsSync(file), false);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? "", /not valid JSON.*moved to .*corrupt-/);

  store.update((memory) => withFact(memory, "fact_1", "works again"));
  assert.equal(store.load().facts[0]?.content, "works again");
});

test("valid JSON that is not a memory document is also treated as corrupt", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  fs.writeFileSync(file, JSON.stringify({ notes: ["x"] }));
  const warnings: string[] = [];
  assert.deepEqual(createMemoryStore(file, { onWarning: (message) => warnings.push(message) }).load().facts, []);
  assert.match(warnings[0]!, /not a memory document/);
  assert.equal(fs.readdirSync(dir).filter((name) => name.includes("corrupt")).length, 1);
});

test("one malformed fact or summary is skipped with a warning; the rest is kept and the file stays", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  const good = withFact(withFact(emptyMemory(), "f1", "Prefers TypeScript"), "f3", "Works at Acme");
  const raw = JSON.parse(JSON.stringify(good));
  raw.facts.splice(1, 0, { id: "f2", content: "x", confidence: 7 });
  raw.userContext.workContext = { summary: "Acme", updatedAt: 5 };
  raw.userContext.topOfMind = { summary: "Shipping v2", updatedAt: "2026-01-01" };
  fs.writeFileSync(file, JSON.stringify(raw));
  const warnings: string[] = [];
  const store = createMemoryStore(file, { onWarning: (message) => warnings.push(message) });
  const memory = store.load();
  assert.deepEqual(
    memory.facts.map((fact) => fact.id),
    ["f1", "f3"],
  );
  assert.equal(memory.userContext.topOfMind.summary, "Shipping v2");
  assert.equal(memory.userContext.workContext.summary, "");
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0]!, /facts\[1\] \(id f2\)/);
  assert.match(warnings[0]!, /userContext\.workContext/);
  store.load();
  assert.equal(warnings.length, 1, "the same file is not warned about twice");
  assert.equal(fs.readdirSync(dir).filter((name) => name.includes("corrupt")).length, 0);
  // An update keeps the good parts and drops the skipped ones.
  store.update((current) => withFact(current, "f4", "Uses vim"));
  assert.deepEqual(
    createMemoryStore(file)
      .load()
      .facts.map((fact) => fact.id),
    ["f1", "f3", "f4"],
  );
});

test("forgetFact removes one fact by id and reports whether it existed", (t) => {
  const store = createMemoryStore(path.join(tempHome(t), "memory.json"));
  store.save(withFact(withFact(emptyMemory(), "fact_1", "one"), "fact_2", "two"));
  assert.equal(store.forgetFact("fact_1"), true);
  assert.equal(store.forgetFact("fact_1"), false);
  assert.deepEqual(
    store.load().facts.map((fact) => fact.id),
    ["fact_2"],
  );
});

test("clear empties summaries and facts", (t) => {
  const store = createMemoryStore(path.join(tempHome(t), "memory.json"));
  const memory = withFact(emptyMemory(), "fact_1", "one");
  memory.userContext.workContext = { summary: "Engineer at Acme", updatedAt: "2026-01-01" };
  store.save(memory);
  store.clear();
  const after = store.load();
  assert.deepEqual(after.facts, []);
  assert.equal(after.userContext.workContext.summary, "");
});

test("export writes the memory; import of that file restores it", (t) => {
  const dir = tempHome(t);
  const store = createMemoryStore(path.join(dir, "memory.json"));
  store.save(withFact(emptyMemory(), "fact_1", "Prefers TypeScript"));
  const exported = path.join(dir, "backup.json");
  store.exportTo(exported);
  store.clear();
  store.importFrom(exported);
  assert.equal(store.load().facts[0]?.content, "Prefers TypeScript");
});

test("import refuses a bad file and leaves the current memory untouched", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  const store = createMemoryStore(file);
  store.save(withFact(emptyMemory(), "fact_1", "keep me"));
  const before = fs.readFileSync(file, "utf8");

  for (const [name, text, reason] of [
    ["broken.json", "{not json", /not valid JSON/],
    ["shape.json", JSON.stringify({ facts: "none" }), /not a memory document/],
    ["list.json", "[1, 2]", /not a memory document/],
  ] as const) {
    const bad = path.join(dir, name);
    fs.writeFileSync(bad, text);
    assert.throws(
      () => store.importFrom(bad),
      (error: unknown) =>
        error instanceof HarnessError &&
        error.code === "memory_invalid" &&
        reason.test(error.message) &&
        /left unchanged/.test(error.message),
    );
  }
  assert.throws(() => store.importFrom(path.join(dir, "missing.json")), /Cannot read/);
  assert.equal(fs.readFileSync(file, "utf8"), before);
});

test("import accepts a DeerFlow export (key `user`, source as { threadId })", (t) => {
  const dir = tempHome(t);
  const store = createMemoryStore(path.join(dir, "memory.json"));
  const deerflow = {
    version: "1.0",
    lastUpdated: "2026-01-01T00:00:00Z",
    user: {
      workContext: { summary: "Payments engineer", updatedAt: "2026-01-01" },
      personalContext: { summary: "", updatedAt: "" },
      topOfMind: { summary: "", updatedAt: "" },
    },
    history: {
      recentMonths: { summary: "", updatedAt: "" },
      earlierContext: { summary: "", updatedAt: "" },
      longTermBackground: { summary: "", updatedAt: "" },
    },
    facts: [
      {
        id: "fact_abc",
        content: "Uses uv, not pip",
        category: "correction",
        confidence: 0.95,
        createdAt: "2026-01-01",
        source: { type: "conversation", threadId: "t9" },
      },
    ],
  };
  const file = path.join(dir, "deerflow.json");
  fs.writeFileSync(file, JSON.stringify(deerflow));
  store.importFrom(file);
  const memory = store.load();
  assert.equal(memory.userContext.workContext.summary, "Payments engineer");
  assert.equal(memory.facts[0]?.source, "t9");
});

test("a lock held by a live process makes writers wait, then fail with memory_locked", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: process.pid, host: os.hostname(), token: "held" }));
  const store = createMemoryStore(file, { lock: { timeoutMs: 50 } });
  assert.throws(
    () => store.save(emptyMemory()),
    (error: unknown) => error instanceof HarnessError && error.code === "memory_locked",
  );
  assert.equal(fs.existsSync(file), false);
  assert.equal(JSON.parse(fs.readFileSync(`${file}.lock`, "utf8")).token, "held");
});

test("a lock left by a dead process is broken and the write goes through", (t) => {
  const dir = tempHome(t);
  const file = path.join(dir, "memory.json");
  fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: os.hostname(), token: "dead" }));
  const store = createMemoryStore(file, { lock: { timeoutMs: 1000 } });
  store.save(withFact(emptyMemory(), "fact_1", "saved"));
  assert.equal(store.load().facts[0]?.id, "fact_1");
  assert.equal(fs.existsSync(`${file}.lock`), false);
});

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage } from "@langchain/core/messages";
import type { MemoryTurn } from "./conversation-filter.js";
import {
  type JournalEntry,
  JournalFile,
  memoryJournalPath,
  moveOrphanedEntries,
  openMemoryJournal,
  orphanedJournalAgents,
} from "./memory-journal.js";
import { createMemoryQueue } from "./memory-queue.js";
import { createMemoryService } from "./memory-service.js";
import { tempHome } from "../testing/temp-home.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";

let n = 0;
const ai = (content: string) => new AIMessage({ content, id: `journal-ai-${++n}` });
const says = (text: string): MemoryTurn[] => [
  { role: "user", content: text },
  { role: "assistant", content: "Noted." },
];
const acmeUpdate = JSON.stringify({
  newFacts: [{ content: "Works at Acme on payment APIs", category: "context", confidence: 0.95 }],
});
const readJournal = (home: string) =>
  JournalFile.parse(JSON.parse(fs.readFileSync(memoryJournalPath(home), "utf8"))).entries;

/** A pid that belonged to a process of this host and is now free. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

function entry(threadId: string, holder: JournalEntry["holder"], agentName?: string): JournalEntry {
  return {
    id: `id-${threadId}`,
    ...(agentName ? { agentName } : {}),
    threadId,
    conversation: says(`I work at Acme (${threadId})`),
    queuedAt: new Date().toISOString(),
    attempts: 0,
    holder,
  };
}

test("a conversation its process never learned from is learned from by the next process that opens the memory", async (t) => {
  const home = tempHome(t);
  const first = createMemoryService({ home, model: new ScriptedChatModel([]), settings: { debounceSeconds: 30 } });
  first.queue.enqueue("thread-1", says("I work at Acme on payment APIs"));
  await first.close(); // the CLI exits: nothing waits for the debounce or a model
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.threadId, queued.holder]),
    [["thread-1", null]],
    "on disk, released for the next process",
  );

  const model = new ScriptedChatModel([ai(acmeUpdate)]);
  const next = createMemoryService({ home, model, settings: { debounceSeconds: 30 } });
  assert.equal(next.resume(), 1);
  await next.flush();
  assert.deepEqual(
    next.store.load().facts.map((fact) => [fact.content, fact.source]),
    [["Works at Acme on payment APIs", "thread-1"]],
  );
  assert.equal(fs.existsSync(next.journalPath), false, "learned from: nothing left to do");
  assert.equal(next.resume(), 0);
});

test("entries a live process holds are left to it; a dead, released or long-silent holder's are adopted", async (t) => {
  const home = tempHome(t);
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const now = new Date().toISOString();
  const journal: JournalFile = {
    version: 1,
    entries: [
      entry("held", { pid: process.ppid, host: os.hostname(), since: now }),
      entry("dead", { pid: deadPid(), host: os.hostname(), since: now }),
      entry("released", null),
      entry("silent", { pid: 1, host: "another-host", since: hourAgo }),
      entry("elsewhere", { pid: 1, host: "another-host", since: now }),
      entry("other-agent", null, "researcher"),
    ],
  };
  fs.writeFileSync(memoryJournalPath(home), JSON.stringify(journal));
  assert.deepEqual(orphanedJournalAgents(memoryJournalPath(home)).sort(), [undefined, "researcher"].sort());

  const adopted = openMemoryJournal(memoryJournalPath(home), undefined).adopt();
  assert.deepEqual(adopted.map((job) => job.threadId).sort(), ["dead", "released", "silent"]);
  const after = readJournal(home);
  for (const threadId of ["dead", "released", "silent"])
    assert.equal(after.find((queued) => queued.threadId === threadId)?.holder?.pid, process.pid);
  assert.equal(after.find((queued) => queued.threadId === "held")?.holder?.pid, process.ppid);
  assert.equal(after.find((queued) => queued.threadId === "other-agent")?.holder, null, "another agent's memory");
});

test("a failing update is tried again, counted across processes, and given up after maxAttempts", async (t) => {
  const home = tempHome(t);
  const file = memoryJournalPath(home);
  const warnings: string[] = [];
  const processOnce = async (adopt: boolean) => {
    const journal = openMemoryJournal(file, undefined);
    const queue = createMemoryQueue({
      debounceMs: 0,
      journal,
      maxAttempts: 3,
      process: async () => "retry",
      onWarning: (message) => warnings.push(message),
    });
    if (adopt) queue.resume(journal.adopt());
    else queue.enqueue("t1", says("I prefer TypeScript"));
    await queue.flush();
    queue.stop();
  };
  await processOnce(false);
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.attempts, queued.holder]),
    [[1, null]],
  );
  await processOnce(true);
  assert.equal(readJournal(home)[0]?.attempts, 2);
  await processOnce(true);
  assert.equal(fs.existsSync(file), false);
  assert.match(warnings.at(-1) ?? "", /thread t1 given up after 3 failed attempts/);
});

test("a newer conversation of a thread replaces its entry; settling the older one keeps the newer", (t) => {
  const home = tempHome(t);
  const journal = openMemoryJournal(memoryJournalPath(home), undefined);
  journal.record({ id: "old", threadId: "t1", conversation: says("first turn") });
  journal.record({ id: "new", threadId: "t1", conversation: says("first turn + second turn") });
  journal.record({ id: "other", threadId: "t2", conversation: says("x") });
  journal.settle({ id: "old", threadId: "t1", conversation: [] });
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.id, queued.conversation[0]?.content]),
    [
      ["new", "first turn + second turn"],
      ["other", "x"],
    ],
  );
});

test("a journal that is not one is moved aside with a warning, and memory goes on", (t) => {
  const home = tempHome(t);
  const file = memoryJournalPath(home);
  fs.writeFileSync(file, "{ half a journal");
  const warnings: string[] = [];
  const journal = openMemoryJournal(file, undefined, { onWarning: (message) => warnings.push(message) });
  assert.deepEqual(journal.adopt(), []);
  journal.record({ id: "j", threadId: "t1", conversation: says("x") });
  assert.equal(readJournal(home).length, 1);
  assert.match(warnings[0] ?? "", /not readable; it was moved to .*memory-pending\.json\.corrupt-/);
  assert.equal(fs.readdirSync(home).filter((name) => name.includes(".corrupt-")).length, 1);
});

test("version 1 journal fixture: both entries are read, and each agent adopts its own", (t) => {
  const home = tempHome(t);
  fs.copyFileSync(path.join(import.meta.dirname, "fixtures", "memory-pending.v1.json"), memoryJournalPath(home));
  const main = openMemoryJournal(memoryJournalPath(home), undefined).adopt();
  assert.deepEqual(main, [
    {
      id: "5b1c9a52-4a8e-4f4e-9d0b-2f7d3c1e8a10",
      threadId: "thread-1",
      conversation: [
        { role: "user", content: "I work at Acme on payment APIs and prefer TypeScript" },
        { role: "assistant", content: "Noted." },
      ],
      attempts: 1,
    },
  ]);
  const researcher = openMemoryJournal(memoryJournalPath(home), "researcher").adopt();
  assert.deepEqual(
    researcher.map((job) => [job.agentName, job.threadId]),
    [["researcher", "thread-2"]],
  );
});

test("a user's view of a journal records entries as that user's and adopts only those; the local view only ownerless ones", (t) => {
  const home = tempHome(t);
  const file = memoryJournalPath(home);
  openMemoryJournal(file, undefined, { userId: "ann" }).record({ id: "a", threadId: "t1", conversation: says("ann") });
  openMemoryJournal(file, undefined).record({ id: "l", threadId: "t1", conversation: says("local") });
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.id, queued.userId]),
    [
      ["a", "ann"],
      ["l", undefined],
    ],
    "the same thread id of two users: two entries",
  );

  fs.writeFileSync(
    file,
    JSON.stringify({ version: 1, entries: [entry("local", null), { ...entry("anns", null), userId: "ann" }] }),
  );
  assert.deepEqual(
    openMemoryJournal(file, undefined, { userId: "bob" }).adopt(),
    [],
    "nothing of ann's or the local user's",
  );
  assert.deepEqual(
    openMemoryJournal(file, undefined, { userId: "ann" })
      .adopt()
      .map((job) => [job.threadId, job.userId]),
    [["anns", "ann"]],
  );
  assert.deepEqual(
    openMemoryJournal(file, undefined)
      .adopt()
      .map((job) => [job.threadId, job.userId]),
    [["local", undefined]],
  );
});

test("the local journal's orphaned entries move to a user's journal as that user's; a live holder's stay", (t) => {
  const home = tempHome(t);
  const from = memoryJournalPath(home);
  const to = memoryJournalPath(path.join(home, "users", "ann"));
  const now = new Date().toISOString();
  const live = entry("live", { pid: process.ppid, host: os.hostname(), since: now });
  fs.writeFileSync(
    from,
    JSON.stringify({
      version: 1,
      entries: [
        entry("released", null),
        entry("dead", { pid: deadPid(), host: os.hostname(), since: now }, "researcher"),
        live,
      ],
    }),
  );
  assert.equal(moveOrphanedEntries(from, to, "ann"), 2);
  assert.deepEqual(
    readJournal(home).map((queued) => queued.threadId),
    ["live"],
  );
  const moved = JournalFile.parse(JSON.parse(fs.readFileSync(to, "utf8"))).entries;
  assert.deepEqual(
    moved.map((queued) => [queued.threadId, queued.agentName, queued.userId, queued.holder]),
    [
      ["released", undefined, "ann", null],
      ["dead", "researcher", "ann", null],
    ],
  );
  assert.equal(moveOrphanedEntries(from, to, "ann"), 0, "the live holder's entry stays");
  assert.equal(moveOrphanedEntries(path.join(home, "none.json"), to, "ann"), 0);
});

test("a correction signal is journaled with its conversation, survives a newer turn, and reaches the next process's prompt", async (t) => {
  const home = tempHome(t);
  const first = createMemoryService({ home, model: new ScriptedChatModel([]), settings: { debounceSeconds: 30 } });
  first.queue.enqueue("thread-1", says("That's wrong, use uv."), { signals: ["correction"] });
  first.queue.enqueue("thread-1", says("That's wrong, use uv. ... Now add a test."));
  await first.close();
  assert.deepEqual(
    readJournal(home).map((queued) => queued.signals),
    [["correction"]],
  );

  // Another process's newer turn of the thread keeps the signal on disk too.
  const other = openMemoryJournal(memoryJournalPath(home), undefined);
  other.record({ id: "later", threadId: "thread-1", conversation: says("And a README.") });
  other.release();
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.id, queued.signals]),
    [["later", ["correction"]]],
  );

  const model = new ScriptedChatModel([ai("{}")]);
  const next = createMemoryService({ home, model, settings: { debounceSeconds: 30 } });
  assert.equal(next.resume(), 1);
  await next.flush();
  assert.match(String(model.calls[0]?.messages[0]?.content), /The user corrected the assistant/);
});

test("signal names a newer version wrote are ignored, not a corrupt journal", (t) => {
  const home = tempHome(t);
  fs.writeFileSync(
    memoryJournalPath(home),
    JSON.stringify({ version: 1, entries: [{ ...entry("t1", null), signals: ["correction", "gratitude"] }] }),
  );
  const adopted = openMemoryJournal(memoryJournalPath(home), undefined).adopt();
  assert.deepEqual(
    adopted.map((job) => job.signals),
    [["correction"]],
  );
});

test("a standalone entry (compacted turns) survives the thread's next conversation, and is adopted as standalone", (t) => {
  const home = tempHome(t);
  const journal = openMemoryJournal(memoryJournalPath(home), undefined);
  journal.record({ id: "early", threadId: "t1", conversation: says("early turns"), standalone: true });
  journal.record({ id: "end", threadId: "t1", conversation: says("the end-of-run conversation") });
  journal.record({ id: "end2", threadId: "t1", conversation: says("the next end-of-run conversation") });
  assert.deepEqual(
    readJournal(home).map((queued) => [queued.id, queued.standalone ?? false]),
    [
      ["early", true],
      ["end2", false],
    ],
  );
  journal.release();
  const adopted = openMemoryJournal(memoryJournalPath(home), undefined).adopt();
  assert.deepEqual(
    adopted.map((job) => [job.id, job.standalone ?? false]),
    [
      ["early", true],
      ["end2", false],
    ],
  );
});

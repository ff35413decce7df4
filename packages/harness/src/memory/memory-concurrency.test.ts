import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { parseMemoryText } from "./memory-schema.js";
import { createMemoryStore } from "./memory-store.js";
import { tempHome } from "../testing/temp-home.js";

// import.meta.resolve: the writer beside this file as it runs, compiled under npm test (plain node, about
// half a second of CPU less per child than tsx's loader), or its source under tsx.
const writer = fileURLToPath(import.meta.resolve("./fixtures/memory-writer.js"));
const loader = writer.endsWith(".ts") ? ["--import", "tsx"] : [];

function spawnWriter(file: string, ...args: string[]): ChildProcess {
  return spawn(process.execPath, [...loader, writer, file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code, signal) =>
      reject(new Error(`writer exited before its first write (code ${code}, signal ${signal})`)),
    );
  });
}

test("writers SIGKILLed at random moments never leave a truncated or invalid memory file", async (t) => {
  const dir = tempHome(t, { prefix: "memory-kill-" });
  const file = path.join(dir, "memory.json");
  let kills = 0;
  let reads = 0;
  let done = false;

  let failure: string | undefined;

  const reader = (async () => {
    while (!done && !failure) {
      if (fs.existsSync(file)) {
        const parsed = parseMemoryText(fs.readFileSync(file, "utf8"));
        if (!parsed.ok) failure = `memory.json unreadable after ${kills} kills: ${parsed.reason}`;
        reads += 1;
      }
      await sleep(1);
    }
  })();

  // Three slots, each repeatedly: start a writer looping on updates, let it write for 0-60 ms, SIGKILL it.
  const slot = async (name: string) => {
    for (let round = 0; round < 6 && !failure; round += 1) {
      const child = spawnWriter(file, `${name}${round}`, "loop");
      try {
        await ready(child);
        await sleep(Math.random() * 60);
      } finally {
        child.kill("SIGKILL");
        await exited(child);
      }
      kills += 1;
    }
  };
  try {
    await Promise.all([slot("a"), slot("b"), slot("c")]);
  } finally {
    done = true;
    await reader;
  }

  assert.equal(failure, undefined);
  assert.equal(kills, 18);
  assert.ok(reads > 0);
  t.diagnostic(`${reads} reads of memory.json during ${kills} kills, all valid`);

  // The store still works afterwards: locks held by killed writers are broken, their temp files removed.
  const store = createMemoryStore(file, { lock: { timeoutMs: 5000 } });
  const before = store.load();
  assert.ok(before.facts.length > 0);
  store.update((memory) => ({ ...memory, facts: [] }));
  assert.deepEqual(store.load().facts, []);
  assert.deepEqual(
    fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")),
    [],
  );
  assert.equal(fs.existsSync(`${file}.lock`), false);
});

test("updates from concurrent processes are all kept (none lost to a read-modify-write race)", async (t) => {
  const dir = tempHome(t, { prefix: "memory-race-" });
  const file = path.join(dir, "memory.json");

  const children = ["p", "q", "r"].map((tag) => spawnWriter(file, tag, "count", "40"));
  const codes = await Promise.all(children.map(exited));
  assert.deepEqual(codes, [0, 0, 0]);

  const ids = new Set(
    createMemoryStore(file)
      .load()
      .facts.map((fact) => fact.id),
  );
  assert.equal(ids.size, 120);
  for (const tag of ["p", "q", "r"])
    for (let i = 0; i < 40; i += 1) assert.ok(ids.has(`fact_${tag}_${i}`), `fact_${tag}_${i} was lost`);
});

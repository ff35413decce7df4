/**
 * A full disk (issue 21, part 7), on a real one: the server's home is a small tmpfs that the test fills
 * and frees. A run that fails for lack of space must end (not stay `running`), its thread must be usable
 * again once space is back, without a restart, and requests that need space get a 507 that says so.
 * Mounting needs root; elsewhere the tests skip and say why.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type TestContext, test } from "node:test";
import { gate, startTestServer, type TestServer, type TestServerOptions, until } from "./helpers.js";

/** A small tmpfs mounted for the test, or the reason there is none. */
function smallDisk(t: TestContext, megabytes: number): string | null {
  if (process.platform !== "linux" || process.getuid?.() !== 0) {
    t.skip("needs root on Linux to mount a small tmpfs as a full disk");
    return null;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "deerflow-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    fs.rmdirSync(dir);
    t.skip(`cannot mount a tmpfs here: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
  t.after(() => {
    execFileSync("umount", ["-l", dir]);
    fs.rmdirSync(dir);
  });
  return dir;
}

/** Fills the disk holding `dir` but `leave` bytes; returns the function that frees it again. */
function fill(dir: string, leave = 0): () => void {
  const filler = path.join(dir, "filler");
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(256 * 1024, 1);
  let size = 0;
  for (const piece of [chunk, chunk.subarray(0, 4096)]) {
    try {
      for (;;) size += fs.writeSync(fd, piece);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
    }
  }
  fs.ftruncateSync(fd, Math.max(0, size - leave));
  fs.closeSync(fd);
  return () => fs.rmSync(filler, { force: true });
}

/** A test server whose home (and temp dir) is on `disk`. */
async function serverOn(disk: string, options: TestServerOptions = {}): Promise<TestServer> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = disk;
  try {
    return await startTestServer(options);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

const hi = { messages: [{ role: "user", content: "write a lot" }] };

test("a run that fails for lack of space ends as error, and once space is freed its thread takes runs again, /wait answers, no restart", {
  timeout: 120_000,
}, async (t) => {
  const disk = smallDisk(t, 24);
  if (!disk) return;
  const modelCalled = gate();
  const answer = gate();
  let reply = "The answer.";
  const s = await serverOn(disk, {
    script: async () => {
      modelCalled.open();
      await answer.wait;
      return { content: reply };
    },
  });
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const waiting = s.client.runs.wait(thread.thread_id, "lead_agent", { input: hi }).then(
    (value) => value,
    (error: Error) => error,
  );
  await modelCalled.wait;
  const free = fill(disk);
  t.after(free);
  answer.open();
  await until(() => s.logs.some((line) => /on thread \S+ failed: /.test(line)), 20_000, "the failed run");

  const created = await fetch(`${s.url}/threads`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(created.status, 507, "a new thread on a full disk");
  const detail = ((await created.json()) as { detail: string }).detail;
  assert.match(detail, /disk is full.*Free space/);
  assert.ok(!detail.includes(disk), "no host path");

  free();
  reply = "Saved this time.";
  const result = await waiting;
  assert.match(String(result), /disk is full.*Free space/, "/wait answers with the failure");
  const [run] = await s.client.runs.list(thread.thread_id);
  assert.equal(run!.status, "error");
  assert.notEqual((await s.client.threads.get(thread.thread_id)).status, "busy");

  const again = (await s.client.runs.wait(thread.thread_id, "lead_agent", { input: hi })) as {
    messages: Array<{ content: unknown }>;
  };
  assert.equal(again.messages.at(-1)!.content, "Saved this time.", "the same thread runs again");
  assert.equal((await s.client.threads.get(thread.thread_id)).status, "idle");
  assert.ok((await s.client.threads.create()).thread_id, "new threads work again");
});

test("an upload on a full disk is a 507 saying so, without a host path", async (t) => {
  const disk = smallDisk(t, 16);
  if (!disk) return;
  const s = await serverOn(disk);
  t.after(() => s.close());
  const thread = await s.client.threads.create();
  const free = fill(disk);
  t.after(free);
  const form = new FormData();
  form.append("files", new Blob(["z".repeat(200_000)]), "notes.txt");
  const response = await fetch(`${s.url}/api/threads/${thread.thread_id}/uploads`, { method: "POST", body: form });
  const body = await response.text();
  assert.equal(response.status, 507, body);
  assert.match(body, /disk is full/);
  assert.ok(!body.includes(disk) && !body.includes(os.tmpdir()) && !/ENOSPC|copyfile/.test(body), body);
  free();
  const retried = await fetch(`${s.url}/api/threads/${thread.thread_id}/uploads`, { method: "POST", body: form });
  assert.equal(retried.status, 200, "the same upload works once space is back");
});

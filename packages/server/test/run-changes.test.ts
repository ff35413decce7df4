/**
 * `GET /api/threads/{id}/runs/{run_id}/changes` over real HTTP: the files a run wrote in the thread's
 * workspace and outputs (created, or modified when they existed before), not files untouched during it,
 * not uploads; 404 for a run of another thread.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { threadUserDataDir } from "@deerflow/harness";
import { startTestServer } from "./helpers.js";

test("run changes: files written during the run, created or modified; older files and uploads left out", async () => {
  const t = await startTestServer({});
  try {
    const client = new Client({ apiUrl: t.url });
    const thread = await client.threads.create();
    const other = await client.threads.create();
    const root = threadUserDataDir(t.home.path, thread.thread_id);
    fs.mkdirSync(path.join(root, "workspace"), { recursive: true });
    fs.mkdirSync(path.join(root, "uploads"), { recursive: true });
    fs.writeFileSync(path.join(root, "workspace", "old.txt"), "before");
    fs.writeFileSync(path.join(root, "workspace", "edited.txt"), "before");
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(root, "workspace", "old.txt"), past, past);
    fs.utimesSync(path.join(root, "workspace", "edited.txt"), past, past);

    // A run on the default model; the files are then dated inside its window, as if it wrote them
    // (birth times stay real: edited.txt existed before the run, plot.csv did not).
    const run = await client.runs.create(thread.thread_id, "lead_agent", {
      input: { messages: [{ role: "user", content: "hello" }] },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const during = new Date(Date.parse((await client.runs.get(thread.thread_id, run.run_id)).created_at) + 200);
    fs.mkdirSync(path.join(root, "outputs", "charts"), { recursive: true });
    const written = [
      path.join(root, "outputs", "charts", "plot.csv"),
      path.join(root, "workspace", "edited.txt"),
      path.join(root, "uploads", "mine.txt"),
    ];
    fs.writeFileSync(written[0]!, "a,b\n1,2\n");
    fs.writeFileSync(written[1]!, "after, longer");
    fs.writeFileSync(written[2]!, "an upload");
    for (const file of written) fs.utimesSync(file, during, during);

    const response = await fetch(`${t.url}/api/threads/${thread.thread_id}/runs/${run.run_id}/changes`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      files: { path: string; kind: string; size: number }[];
      truncated: boolean;
      status: string;
    };
    assert.equal(body.truncated, false);
    const byPath = Object.fromEntries(body.files.map((file) => [file.path, file]));
    assert.deepEqual(Object.keys(byPath).sort(), [
      "/mnt/user-data/outputs/charts/plot.csv",
      "/mnt/user-data/workspace/edited.txt",
    ]);
    assert.equal(byPath["/mnt/user-data/outputs/charts/plot.csv"]!.kind, "created");
    assert.equal(byPath["/mnt/user-data/outputs/charts/plot.csv"]!.size, 8);
    assert.equal(byPath["/mnt/user-data/workspace/edited.txt"]!.kind, "modified");

    const elsewhere = await fetch(`${t.url}/api/threads/${other.thread_id}/runs/${run.run_id}/changes`);
    assert.equal(elsewhere.status, 404, "a run of another thread");

    // The same files as DeerFlow's frontend asks for them (core/workspace-changes/api.ts).
    const deerflow = await fetch(
      `${t.url}/api/threads/${thread.thread_id}/runs/${run.run_id}/workspace-changes?include_files=true&include_diff=true`,
    );
    assert.equal(deerflow.status, 200);
    const review = (await deerflow.json()) as {
      available: boolean;
      summary: Record<string, unknown>;
      files: Array<Record<string, unknown>>;
    };
    assert.equal(review.available, true);
    assert.deepEqual(review.summary, {
      created: 1,
      modified: 1,
      deleted: 0,
      symlink_created: 0,
      additions: 2,
      deletions: 0,
      truncated: false,
    });
    const plot = review.files.find((file) => file.path === "/mnt/user-data/outputs/charts/plot.csv")!;
    assert.equal(plot.root, "outputs");
    assert.equal(plot.status, "created");
    assert.equal(plot.diff, "--- /dev/null\n+++ b/mnt/user-data/outputs/charts/plot.csv\n@@ -0,0 +1,2 @@\n+a,b\n+1,2");
    const edited = review.files.find((file) => file.path === "/mnt/user-data/workspace/edited.txt")!;
    assert.deepEqual([edited.status, edited.diff, edited.diff_unavailable_reason], ["modified", "", null]);
    const noDiff = await fetch(
      `${t.url}/api/threads/${thread.thread_id}/runs/${run.run_id}/workspace-changes?include_files=true&include_diff=false`,
    );
    const counted = (await noDiff.json()) as { summary: { additions: number }; files: Array<{ diff: string }> };
    assert.equal(counted.summary.additions, 2, "the badge's summary counts lines without the diff");
    assert.ok(counted.files.every((file) => file.diff === ""));
    const summaryOnly = await fetch(
      `${t.url}/api/threads/${thread.thread_id}/runs/${run.run_id}/workspace-changes?include_files=false`,
    );
    assert.deepEqual(((await summaryOnly.json()) as { files: unknown[] }).files, []);
    const notTheirs = await fetch(`${t.url}/api/threads/${other.thread_id}/runs/${run.run_id}/workspace-changes`);
    assert.equal(notTheirs.status, 404);
  } finally {
    await t.close();
  }
});

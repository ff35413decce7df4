/**
 * The server's SQLite store keeps a thread's search index with its archive: deleting a thread leaves
 * none of its text searchable, and a copy's compacted messages are searchable in the copy.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createHistoryArchive } from "@deerflow/harness";
import Database from "better-sqlite3";
import { openSqliteRunStores } from "../src/runs/sqlite-store.js";

const info = { compactedAt: "2026-01-01T00:00:00.000Z", summary: "a chat" };

test("SQLite thread delete and copy carry the history search index", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "deerflow-sqlite-archive-"));
  try {
    const file = path.join(dir, "checkpoints.sqlite");
    const archive = createHistoryArchive(file);
    archive.append(
      "t1",
      [
        new HumanMessage({ id: "m1", content: "the heron code is 7431" }),
        new AIMessage({ id: "m2", content: "noted the marmalade plan" }),
      ],
      info,
    );
    archive.append("t2", [new HumanMessage({ id: "m3", content: "another thread about marmalade" })], info);
    const stores = openSqliteRunStores(file);
    try {
      stores.copyThreadState("t1", "copy");
      const hits = archive.search("copy", "heron code", 5);
      assert.equal(hits.length, 1, "the copy's archived messages are searchable");
      assert.equal(hits[0]!.role, "user");
      assert.equal(hits[0]!.turn, 1);
      assert.ok(archive.hasArchive("copy"));

      stores.deleteThreadState("t1");
      assert.deepEqual(archive.search("t1", "heron marmalade", 5), [], "nothing of the deleted thread is searchable");
      assert.equal(archive.hasArchive("t1"), false);
      const db = new Database(file, { readonly: true });
      try {
        assert.equal(
          (db.prepare("SELECT count(*) AS n FROM history_search WHERE thread_id = 't1'").get() as { n: number }).n,
          0,
        );
        // The full-text index holds only rows that still exist (the copy's two and t2's one).
        assert.equal(
          (
            db.prepare("SELECT count(*) AS n FROM history_fts WHERE history_fts MATCH 'marmalade'").get() as {
              n: number;
            }
          ).n,
          2,
        );
      } finally {
        db.close();
      }
      assert.equal(archive.search("copy", "heron", 5).length, 1, "the copy keeps its index");
      assert.equal(archive.search("t2", "marmalade", 5).length, 1, "other threads keep theirs");
    } finally {
      stores.close();
      archive.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

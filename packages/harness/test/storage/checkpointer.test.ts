/**
 * The embedded checkpoint store's durability settings: WAL with NORMAL sync (no fsync per graph step),
 * and a step another connection reads as soon as it is committed, as a resumed run after a killed
 * process would.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { openCheckpointStore } from "../../src/storage/checkpointer.js";
import { createTempHome } from "../../src/testing/index.js";

test("the store runs WAL with synchronous NORMAL, and a committed checkpoint is read by another connection at once", async () => {
  const home = createTempHome();
  const file = path.join(home.path, "checkpoints.sqlite");
  const store = openCheckpointStore(file);
  try {
    assert.equal(store.db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(store.db.pragma("synchronous", { simple: true }), 1, "1 is NORMAL (2 FULL fsyncs every commit)");
    const config = { configurable: { thread_id: "t1", checkpoint_ns: "" } };
    const checkpoint = {
      v: 4,
      id: "00000000-0000-0000-0000-000000000001",
      ts: new Date(0).toISOString(),
      channel_values: { note: "kept" },
      channel_versions: {},
      versions_seen: {},
    };
    await store.saver.put(config, checkpoint as never, { source: "input", step: -1, parents: {} } as never);
    const other = new Database(file, { readonly: true });
    try {
      assert.equal(
        (other.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = 't1'").get() as { n: number }).n,
        1,
      );
    } finally {
      other.close();
    }
    const read = await store.saver.getTuple({ configurable: { thread_id: "t1" } });
    assert.equal((read?.checkpoint.channel_values as { note?: string } | undefined)?.note, "kept");
  } finally {
    store.close();
    home.cleanup();
  }
});

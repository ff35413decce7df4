import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { openSqliteRunStores } from "../runs/sqlite-store.js";
import { openSqliteDeliveryStore } from "./sqlite-deliveries.js";

test("with nothing waiting, claims skip the table until a delivery is recorded here or a second has passed", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "deerflow-deliveries-"));
  const stores = openSqliteRunStores(path.join(dir, "threads.sqlite"));
  const deliveries = openSqliteDeliveryStore(path.join(dir, "threads.sqlite"));
  const other = new Database(path.join(dir, "threads.sqlite"));
  t.after(() => {
    other.close();
    deliveries.close();
    stores.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.deepEqual(await deliveries.claimReady(60_000, 10), []);

  // A row written behind the store's back (another connection) is not looked for within the second...
  const old = new Date(Date.now() - 120_000).toISOString();
  other
    .prepare(
      "INSERT INTO deerflow_deliveries (delivery_id, run_id, url, next_attempt_at, created_at) VALUES ('d1', 'gone', 'https://example.com/a', ?, ?)",
    )
    .run(old, old);
  assert.deepEqual(await deliveries.claimReady(60_000, 10), []);

  // ...but one recorded through the store makes the next claim query at once, and finds both.
  await deliveries.expect("gone-too", "https://example.com/b");
  other.prepare("UPDATE deerflow_deliveries SET created_at = ?, next_attempt_at = ?").run(old, old);
  const claimed = await deliveries.claimReady(60_000, 10);
  assert.deepEqual(claimed.map((delivery) => delivery.url).sort(), ["https://example.com/a", "https://example.com/b"]);
  assert.ok(claimed.every((delivery) => delivery.run_missing));

  // Claimed deliveries still wait (for their attempt's outcome), so claims keep querying.
  other.prepare("UPDATE deerflow_deliveries SET next_attempt_at = ?").run(old);
  assert.equal((await deliveries.claimReady(60_000, 10)).length, 2);
});

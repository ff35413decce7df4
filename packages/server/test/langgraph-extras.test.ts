/**
 * LangGraph API routes through the official SDK Client, on SQLite and on Postgres: the store
 * (`client.store.*`: put, get, delete, search with prefix, filter, query and paging, namespaces with
 * prefix, suffix, depth and paging, item TTL), `threads.patchState`, `updateState` with `asNode` and a
 * checkpoint, `threads.prune` (delete and keep_latest) and thread TTLs swept by the server.
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { testDatabase } from "@deerflow/harness/testing";
import { startTestServer, type TestServer, until } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });

async function withServer(t: TestContext, backend: "sqlite" | "postgres", body: (s: TestServer) => Promise<void>) {
  let yaml = "checkpoints: {retention: all}";
  if (backend === "postgres") {
    const db = await testDatabase();
    if ("skip" in db) return t.skip(db.skip);
    t.after(() => db.drop());
    yaml += `\ndatabase: {backend: postgres, url: '${db.url}'}`;
  }
  const s = await startTestServer({ yaml, ttlSweepMs: 50 });
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

/** An SDK call must fail with `status` and a detail matching `pattern`. */
async function fails(call: Promise<unknown>, status: number, pattern: RegExp) {
  await assert.rejects(call, (error: Error & { status?: number }) => {
    assert.equal(error.status, status, error.message);
    assert.match(error.message, pattern);
    return true;
  });
}

for (const backend of ["sqlite", "postgres"] as const) {
  test(`store: put, get, delete, search and namespaces (${backend})`, (t) =>
    withServer(t, backend, async ({ client, url }) => {
      const store = client.store;
      await store.putItem(["users", "u1", "prefs"], "theme", { color: "green", size: 2 });
      await store.putItem(["users", "u1", "prefs"], "lang", { code: "en", size: 1 });
      await store.putItem(["users", "u2", "prefs"], "theme", { color: "blue", size: 2 });
      await store.putItem(["users", "u1", "notes"], "n1", { text: "Buy Deer Food" });
      await store.putItem(["usersx"], "x", { text: "not under users" });

      const item = await store.getItem(["users", "u1", "prefs"], "theme");
      assert.deepEqual(item?.value, { color: "green", size: 2 });
      assert.deepEqual(item?.namespace, ["users", "u1", "prefs"]);
      assert.equal(typeof item?.createdAt, "string");
      assert.equal(await store.getItem(["users", "u1", "prefs"], "missing"), null);

      // Replacing keeps created_at and moves updated_at.
      await store.putItem(["users", "u1", "prefs"], "theme", { color: "red", size: 2 });
      const replaced = await store.getItem(["users", "u1", "prefs"], "theme");
      assert.equal(replaced?.createdAt, item?.createdAt);
      assert.deepEqual(replaced?.value, { color: "red", size: 2 });

      const under = await store.searchItems(["users"], { limit: 10 });
      assert.equal(under.items.length, 4, "a prefix is whole labels: usersx is not under users");
      assert.deepEqual(under.items[0]!.key, "theme", "most recently updated first");
      const filtered = await store.searchItems(["users"], { filter: { size: 2 } });
      assert.deepEqual(filtered.items.map((one) => one.namespace[1]).sort(), ["u1", "u2"]);
      const query = await store.searchItems([], { query: "deer food" });
      assert.deepEqual(
        query.items.map((one) => one.key),
        ["n1"],
      );
      const page = await store.searchItems(["users"], { limit: 2, offset: 2 });
      assert.deepEqual(
        page.items.map((one) => one.key),
        under.items.slice(2, 4).map((one) => one.key),
      );

      assert.deepEqual((await store.listNamespaces()).namespaces, [
        ["users", "u1", "notes"],
        ["users", "u1", "prefs"],
        ["users", "u2", "prefs"],
        ["usersx"],
      ]);
      assert.deepEqual((await store.listNamespaces({ prefix: ["users"], maxDepth: 2 })).namespaces, [
        ["users", "u1"],
        ["users", "u2"],
      ]);
      assert.deepEqual((await store.listNamespaces({ suffix: ["prefs"], limit: 1, offset: 1 })).namespaces, [
        ["users", "u2", "prefs"],
      ]);

      await store.deleteItem(["users", "u1", "prefs"], "theme");
      assert.equal(await store.getItem(["users", "u1", "prefs"], "theme"), null);
      await store.deleteItem(["users", "u1", "prefs"], "theme"); // deleting nothing is fine

      // Bad input says what is wrong.
      const bad = async (init: RequestInit & { path?: string }, pattern: RegExp) => {
        const response = await fetch(`${url}${init.path ?? "/store/items"}`, {
          ...init,
          headers: { "content-type": "application/json" },
        });
        assert.equal(response.status, 422);
        assert.match(((await response.json()) as { detail: string }).detail, pattern);
      };
      await bad({ method: "PUT", body: JSON.stringify({ namespace: [], key: "k", value: {} }) }, /namespace/);
      await bad({ method: "PUT", body: JSON.stringify({ namespace: ["a.b"], key: "k", value: {} }) }, /'\.'/);
      await bad({ method: "PUT", body: JSON.stringify({ namespace: ["a"], key: "k", value: 3 }) }, /JSON object/);
      await bad({ method: "PUT", body: JSON.stringify({ namespace: ["a"], key: "k", value: {}, ttl: -1 }) }, /ttl/);
      await bad({ method: "GET", path: "/store/items?namespace=a..b&key=k" }, /label is empty/);
      await bad({ method: "POST", path: "/store/items/search", body: JSON.stringify({ limit: 0 }) }, /limit/);
    }));

  test(`store: an item with a TTL expires and the sweep deletes it (${backend})`, (t) =>
    withServer(t, backend, async ({ client }) => {
      await client.store.putItem(["cache"], "short", { v: 1 }, { ttl: 0.001 });
      await client.store.putItem(["cache"], "long", { v: 2 }, { ttl: 60 });
      await client.store.putItem(["cache"], "forever", { v: 3 });
      await until(async () => (await client.store.getItem(["cache"], "short")) === null, 10_000, "the item to expire");
      const left = await client.store.searchItems(["cache"], { refreshTtl: true });
      assert.deepEqual(left.items.map((one) => one.key).sort(), ["forever", "long"]);
      assert.deepEqual((await client.store.getItem(["cache"], "long", { refreshTtl: true }))?.value, { v: 2 });
    }));

  test(`threads: patchState, updateState with asNode and a checkpoint (${backend})`, (t) =>
    withServer(t, backend, async ({ client }) => {
      const thread = await client.threads.create();
      await client.runs.wait(thread.thread_id, "lead_agent", { input: say("first") });
      const head = await client.threads.getState(thread.thread_id);
      await client.threads.patchState(thread.thread_id, { reviewed: "yes" });
      const patched = await client.threads.getState(thread.thread_id);
      assert.equal(patched.checkpoint.checkpoint_id, head.checkpoint.checkpoint_id, "no new checkpoint");
      assert.equal(patched.metadata?.reviewed, "yes");
      assert.equal(patched.metadata?.source, head.metadata?.source, "the rest of the metadata is kept");

      // asNode credits the update to that node; forking from the first checkpoint leaves the head's lineage.
      const history = await client.threads.getHistory(thread.thread_id, { limit: 100 });
      const root = history.at(-1)!;
      const written = await client.threads.updateState(thread.thread_id, {
        values: { title: "Renamed" },
        asNode: "model_request",
        checkpoint: root.checkpoint,
      });
      const forked = await client.threads.getState<{ title: string }>(thread.thread_id);
      assert.equal(forked.checkpoint.checkpoint_id, written.configurable?.checkpoint_id);
      assert.equal(forked.parent_checkpoint?.checkpoint_id, root.checkpoint.checkpoint_id);
      assert.equal(forked.values.title, "Renamed");
      assert.equal(forked.metadata?.source, "update");
      assert.deepEqual(forked.next, [], "credited to the model node: nothing runs next");
      // Credited to the node before the model: the model call is what runs next.
      await client.threads.updateState(thread.thread_id, {
        values: { title: "Again" },
        asNode: "deerflow-chain.before_model",
      });
      assert.deepEqual((await client.threads.getState(thread.thread_id)).next, ["model_request"]);
      await fails(
        client.threads.updateState(thread.thread_id, { values: { title: "x" }, asNode: "no_such_node" }),
        400,
        /as_node must be one of the graph's nodes: .*model_request/,
      );
      const fresh = await client.threads.create();
      await fails(client.threads.patchState(fresh.thread_id, { a: 1 }), 404, /checkpoint/);
    }));

  test(`threads: prune deletes or keeps the latest checkpoint; TTLs are swept (${backend})`, (t) =>
    withServer(t, backend, async ({ client }) => {
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => client.threads.create()));
      for (const thread of [a!, b!, c!]) {
        await client.runs.wait(thread.thread_id, "lead_agent", { input: say("one") });
        await client.runs.wait(thread.thread_id, "lead_agent", { input: say("two") });
      }
      assert.ok((await client.threads.getHistory(b!.thread_id, { limit: 100 })).length > 1);
      assert.deepEqual(await client.threads.prune([b!.thread_id], { strategy: "keep_latest" }), { pruned_count: 1 });
      const kept = await client.threads.getHistory<{ messages: unknown[] }>(b!.thread_id, { limit: 100 });
      assert.equal(kept.length, 1);
      assert.equal(kept[0]!.values.messages.length, 4);
      assert.deepEqual(
        await client.threads.prune([a!.thread_id, a!.thread_id, "0190f000-0000-7000-8000-0000000000cc"]),
        { pruned_count: 1 },
      );
      await fails(client.threads.get(a!.thread_id), 404, /not found/i);
      await fails(client.threads.prune([]), 422, /thread_ids/);
      await fails(client.threads.prune([c!.thread_id], { strategy: "nope" as "delete" }), 422, /strategy/);

      // TTLs: on create (minutes, default strategy delete), and keep_latest through update.
      const short = await client.threads.create({ ttl: 0.001 });
      const kept2 = await client.threads.create({ ttl: 60 });
      // keep_latest is ours (the SDK types only delete for TTLs; prune takes both).
      await client.threads.update(c!.thread_id, { ttl: { ttl: 0.001, strategy: "keep_latest" as "delete" } });
      await until(
        async () => (await client.threads.search({ limit: 100 })).every((one) => one.thread_id !== short.thread_id),
        10_000,
        "the short-lived thread to be deleted",
      );
      await until(
        async () => (await client.threads.getHistory(c!.thread_id, { limit: 100 })).length === 1,
        10_000,
        "c's old checkpoints to be pruned",
      );
      assert.equal((await client.threads.get(kept2.thread_id)).thread_id, kept2.thread_id);
      assert.equal((await client.threads.get(c!.thread_id)).thread_id, c!.thread_id);
      await fails(client.threads.create({ ttl: { ttl: -5 } as { ttl: number } }), 422, /ttl/);
    }));
}

/** The skeleton: health, info, errors as {detail}, auth on and off, body limit, CORS, both mounts. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

test("ok and info answer at / and /api; unknown paths are a 404 with detail", async () => {
  const t = await startTestServer();
  try {
    for (const prefix of ["", "/api"]) {
      assert.deepEqual(await (await fetch(`${t.url}${prefix}/ok`)).json(), { ok: true });
      const info = (await (await fetch(`${t.url}${prefix}/info`)).json()) as { flags: object; model: string };
      assert.equal(info.model, "fake");
      assert.ok(info.flags);
    }
    const missing = await fetch(`${t.url}/nope`);
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { detail: string }).detail, /Not found/);
  } finally {
    await t.close();
  }
});

test("with API keys every route but ok/info needs x-api-key or Authorization: Bearer", async () => {
  const key = "k".repeat(32);
  const t = await startTestServer({ apiKeys: [key] });
  try {
    assert.equal((await fetch(`${t.url}/ok`)).status, 200);
    assert.equal((await fetch(`${t.url}/api/info`)).status, 200);
    const denied = await fetch(`${t.url}/threads/search`, { method: "POST", body: "{}" });
    assert.equal(denied.status, 401);
    assert.match(((await denied.json()) as { detail: string }).detail, /x-api-key/);
    assert.equal(
      (await fetch(`${t.url}/threads/search`, { method: "POST", body: "{}", headers: { "x-api-key": "wrong" } }))
        .status,
      401,
    );
    assert.equal(
      (await fetch(`${t.url}/threads/search`, { method: "POST", body: "{}", headers: { "x-api-key": key } })).status,
      200,
    );
    assert.equal(
      (
        await fetch(`${t.url}/api/threads/search`, {
          method: "POST",
          body: "{}",
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
      200,
    );
    const { Client } = await import("@langchain/langgraph-sdk");
    await assert.rejects(new Client({ apiUrl: t.url, apiKey: null }).threads.create(), /HTTP 401/);
    assert.ok(
      (await new Client({ apiUrl: t.url, apiKey: key }).threads.create()).thread_id,
      "the SDK's apiKey is accepted",
    );
  } finally {
    await t.close();
  }
});

test("bodies over the limit are 413, bad JSON is 422, CORS exposes the run headers", async () => {
  const t = await startTestServer({ maxBodyBytes: 1000 });
  try {
    const big = await fetch(`${t.url}/threads`, {
      method: "POST",
      body: JSON.stringify({ metadata: { x: "y".repeat(5000) } }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(big.status, 413);
    assert.ok(((await big.json()) as { detail: string }).detail);
    for (const path of ["/threads", "/threads/search", "/runs/wait"]) {
      const bad = await fetch(`${t.url}${path}`, {
        method: "POST",
        body: "{not json",
        headers: { "content-type": "application/json" },
      });
      assert.equal(bad.status, 422, path);
      assert.match(((await bad.json()) as { detail: string }).detail, /not valid JSON/);
    }
    const plain = await fetch(`${t.url}/threads`, {
      method: "POST",
      body: JSON.stringify({ thread_id: "plain-text-body" }),
      headers: { "content-type": "text/plain" },
    });
    assert.equal(
      ((await plain.json()) as { thread_id: string }).thread_id,
      "plain-text-body",
      "text/plain bodies are read as JSON",
    );
    const preflight = await fetch(`${t.url}/threads`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:3000",
        "access-control-request-method": "POST",
        "access-control-request-headers": "x-api-key,last-event-id",
      },
    });
    assert.ok(preflight.status < 300);
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /last-event-id/);
    const simple = await fetch(`${t.url}/ok`, { headers: { origin: "http://localhost:3000" } });
    assert.match(simple.headers.get("access-control-expose-headers") ?? "", /content-location/);
    assert.match(simple.headers.get("access-control-expose-headers") ?? "", /location/);
  } finally {
    await t.close();
  }
});

test("an internal error is a 500 with a plain detail; the stack goes to the log only", async () => {
  const t = await startTestServer();
  try {
    t.server.app.get("/boom", () => {
      throw new Error("secret internals at /home/me/file.ts:12");
    });
    const response = await fetch(`${t.url}/boom`);
    assert.equal(response.status, 500);
    const body = (await response.json()) as { detail: string };
    assert.doesNotMatch(body.detail, /secret|file\.ts/);
    assert.ok(t.logs.some((line) => line.includes("secret internals")));
  } finally {
    await t.close();
  }
});

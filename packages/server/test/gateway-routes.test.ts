/**
 * Gateway routes over real HTTP: models (no secrets), features, the local user's auth endpoints,
 * memory (get, facts add/edit/delete, clear, export, import with validation), skills (list, enable,
 * disable, and the next run's prompt follows), the durable messages page and token usage.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { tempHome } from "@deerflow/harness/testing";
import { collect, lastUserText, startTestServer } from "./helpers.js";

const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

test("models, features, auth/me and setup-status answer for the local user; no api key leaks", async () => {
  const t = await startTestServer({
    extraModels: [
      "{name: vision, display_name: Vision, use: openai, model: v, api_key: sk-secret-2, base_url: 'http://10.9.8.7/v1', supports_vision: true, supports_thinking: true}",
      // DeerFlow's frontend offers Pro and Ultra only for a model with supports_thinking.
      "{name: reasoner, use: openai, model: deepseek-reasoner, api_key: x, base_url: 'http://10.9.8.7/v1'}",
      "{name: tuned, use: openai, model: my-finetune, api_key: x, base_url: 'http://10.9.8.7/v1', thinking: true}",
      "{name: qwen-fast, use: openai, model: qwen3-8b, api_key: x, base_url: 'http://10.9.8.7/v1', supports_thinking: false}",
      "{name: demo, use: demo}",
    ],
  });
  try {
    const response = await fetch(`${t.url}/api/models`);
    const text = await response.text();
    assert.ok(
      !text.includes("sk-secret") &&
        !text.includes("api_key") &&
        !text.includes(t.fake.url) &&
        !text.includes("10.9.8.7"),
      "no keys or endpoints in the model list",
    );
    const body = JSON.parse(text) as { models: Array<Record<string, unknown>>; default_model: string };
    assert.equal(body.default_model, "fake");
    assert.deepEqual(
      body.models.map((model) => [
        model.name,
        model.display_name,
        model.supports_thinking,
        model.supports_vision,
        model.is_default,
      ]),
      [
        ["fake", "fake", false, false, true],
        ["vision", "Vision", true, true, false],
        ["reasoner", "reasoner", true, false, false],
        ["tuned", "tuned", true, false, false],
        ["qwen-fast", "qwen-fast", false, false, false],
        ["demo", "demo", true, false, false],
      ],
    );
    assert.equal(((await (await fetch(`${t.url}/api/models/vision`)).json()) as { name: string }).name, "vision");
    assert.equal((await fetch(`${t.url}/api/models/nope`)).status, 404);
    const features = (await (await fetch(`${t.url}/api/features`)).json()) as Record<string, { enabled: boolean }>;
    assert.equal(features.agents_api!.enabled, true);
    // No admin yet: DeerFlow's frontend offers first-admin setup, which turns accounts on (docs/auth.md).
    assert.deepEqual(await (await fetch(`${t.url}/api/v1/auth/setup-status`)).json(), {
      needs_setup: true,
      registration_enabled: false,
      accounts: false,
    });
    // Exactly DeerFlow's auth-disabled user, the one its frontend and its real-backend tests expect.
    assert.deepEqual(await (await fetch(`${t.url}/api/v1/auth/me`)).json(), {
      id: "default",
      email: "default@test.local",
      system_role: "admin",
      needs_setup: false,
      oauth_provider: null,
    });
  } finally {
    await t.close();
  }
});

test("the suggestions config and the channels list follow config.yaml, in DeerFlow's shapes", async () => {
  const t = await startTestServer();
  try {
    // DeerFlow's default: on, three at most.
    const suggestions = await fetch(`${t.url}/api/suggestions/config`);
    assert.equal(suggestions.status, 200);
    assert.deepEqual(await suggestions.json(), { enabled: true, max_suggestions: 3 });
    // A 404 here left three skeleton rows under "Channels" and a retry loop.
    const providers = await fetch(`${t.url}/api/channels/providers`);
    assert.equal(providers.status, 200);
    const body = (await providers.json()) as { enabled: boolean; providers: Array<Record<string, unknown>> };
    assert.equal(body.enabled, true);
    assert.deepEqual(
      body.providers.map((provider) => [provider.provider, provider.configured, provider.connection_status]),
      [
        ["telegram", false, "not_connected"],
        ["slack", false, "not_connected"],
      ],
    );
    assert.match(String(body.providers[0]!.unavailable_reason), /Add channels\.telegram to config\.yaml/);
    assert.deepEqual(await (await fetch(`${t.url}/api/channels/connections`)).json(), { connections: [] });
  } finally {
    await t.close();
  }
});

test("gateway routes need the API key when keys are configured", async () => {
  const t = await startTestServer({ apiKeys: ["k1"] });
  try {
    assert.equal((await fetch(`${t.url}/api/models`)).status, 401);
    assert.equal((await fetch(`${t.url}/api/memory`)).status, 401);
    assert.equal((await fetch(`${t.url}/api/models`, { headers: { "x-api-key": "k1" } })).status, 200);
  } finally {
    await t.close();
  }
});

test("memory: facts added, edited and deleted, cleared, exported and imported with validation", async () => {
  const t = await startTestServer({ yaml: "memory: {enabled: true, max_facts: 2}" });
  try {
    const url = `${t.url}/api/memory`;
    const empty = (await (await fetch(url)).json()) as { user: unknown; facts: unknown[] };
    assert.ok(empty.user, "DeerFlow's `user` key");
    assert.deepEqual(empty.facts, []);

    const added = (await (
      await fetch(`${url}/facts`, json({ content: "Prefers TypeScript", category: "preference", confidence: 0.95 }))
    ).json()) as { facts: Array<{ id: string; content: string; source: string }> };
    const id = added.facts[0]!.id;
    assert.equal(added.facts[0]!.source, "manual");
    const edited = (await (
      await fetch(`${url}/facts/${id}`, json({ content: "Prefers strict TypeScript" }, "PATCH"))
    ).json()) as { facts: Array<{ content: string; confidence: number }> };
    assert.deepEqual([edited.facts[0]!.content, edited.facts[0]!.confidence], ["Prefers strict TypeScript", 0.95]);
    assert.equal((await fetch(`${url}/facts/missing`, json({ content: "x" }, "PATCH"))).status, 404);
    assert.equal((await fetch(`${url}/facts`, json({ content: "" }))).status, 422);
    assert.equal((await fetch(`${url}/facts`, json({ content: "x", confidence: 3 }))).status, 422);
    assert.equal((await fetch(`${url}/facts`, json({ content: "x", bogus: 1 }))).status, 422);
    await fetch(`${url}/facts`, json({ content: "Second fact", confidence: 0.5 }));
    const duplicate = await fetch(`${url}/facts`, json({ content: "  second   FACT " }));
    assert.equal(duplicate.status, 409, "the same content, ignoring case and spacing");
    assert.match(((await duplicate.json()) as { detail: string }).detail, /already holds this fact/);
    const outranked = await fetch(`${url}/facts`, json({ content: "Weak fact", confidence: 0.1 }));
    assert.equal(outranked.status, 409, "full, and the new fact is the least confident");
    assert.match(((await outranked.json()) as { detail: string }).detail, /memory\.max_facts is 2/);
    const replaced = (await (await fetch(`${url}/facts`, json({ content: "Third fact", confidence: 0.6 }))).json()) as {
      facts: Array<{ content: string }>;
    };
    assert.deepEqual(
      replaced.facts.map((fact) => fact.content),
      ["Prefers strict TypeScript", "Third fact"],
      "a full memory drops its least confident fact for the new one",
    );

    const file = JSON.parse(fs.readFileSync(path.join(t.home.path, "memory.json"), "utf8")) as {
      facts: Array<{ content: string }>;
    };
    assert.deepEqual(
      file.facts.map((fact) => fact.content),
      ["Prefers strict TypeScript", "Third fact"],
      "written to the harness's memory file",
    );
    assert.match(
      t.harness.agent().deerflow.systemPrompt,
      /Prefers strict TypeScript/,
      "the next run's prompt carries the edited memory",
    );

    const exported = await fetch(`${url}/export`);
    assert.match(exported.headers.get("content-disposition")!, /attachment/);
    const document = (await exported.json()) as { facts: unknown[]; user: unknown };
    assert.equal(document.facts.length, 2);

    assert.equal((await fetch(`${url}/facts/${id}`, { method: "DELETE" })).status, 200);
    assert.equal((await fetch(`${url}/facts/${id}`, { method: "DELETE" })).status, 404);
    const cleared = (await (await fetch(url, { method: "DELETE" })).json()) as { facts: unknown[] };
    assert.deepEqual(cleared.facts, []);

    const bad = await fetch(
      `${url}/import`,
      json({ facts: [{ id: "a", content: "x", confidence: 7 }], user: {}, history: {} }),
    );
    assert.equal(bad.status, 422);
    assert.match(((await bad.json()) as { detail: string }).detail, /left unchanged/);
    assert.deepEqual(
      ((await (await fetch(url)).json()) as { facts: unknown[] }).facts,
      [],
      "a bad import changes nothing",
    );
    const imported = (await (await fetch(`${url}/import`, json(document))).json()) as {
      facts: Array<{ content: string }>;
    };
    assert.deepEqual(
      imported.facts.map((fact) => fact.content),
      ["Prefers strict TypeScript", "Third fact"],
    );

    const correction = {
      id: "fact_uv",
      content: "Installs packages with uv",
      category: "correction",
      confidence: 0.95,
      sourceError: "Suggested pip install",
    };
    await fetch(`${url}/import`, json({ ...document, facts: [correction] }));
    const shown = (await (await fetch(url)).json()) as { facts: Array<{ sourceError?: string }> };
    assert.equal(shown.facts[0]?.sourceError, "Suggested pip install", "a correction shows what was wrong");
    assert.match(
      t.harness.agent().deerflow.systemPrompt,
      /\[correction \| 0\.95\] Installs packages with uv \(not: Suggested pip install\)/,
    );
  } finally {
    await t.close();
  }
});

test("skills: list, disable and enable; the next run's prompt follows", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "skills-route-" });
  const skillsPath = path.join(dir, "skills");
  fs.mkdirSync(path.join(skillsPath, "custom", "haiku-writer"), { recursive: true });
  fs.writeFileSync(
    path.join(skillsPath, "custom", "haiku-writer", "SKILL.md"),
    "---\nname: haiku-writer\ndescription: Writes haiku about anything.\n---\n# Haiku\n",
  );
  const extensions = path.join(dir, "extensions_config.json");
  const t = await startTestServer({
    yaml: `skills: {path: '${skillsPath}'}`,
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions },
  });
  try {
    const list = (await (await fetch(`${t.url}/api/skills`)).json()) as {
      skills: Array<{ name: string; enabled: boolean; category: string; path: string }>;
    };
    const haiku = list.skills.find((skill) => skill.name === "haiku-writer")!;
    assert.deepEqual(
      [haiku.enabled, haiku.category, haiku.path],
      [true, "custom", "/mnt/skills/custom/haiku-writer/SKILL.md"],
    );
    assert.match(t.harness.agent().deerflow.systemPrompt, /haiku-writer/);

    const off = await fetch(`${t.url}/api/skills/haiku-writer`, json({ enabled: false }, "PUT"));
    assert.equal(((await off.json()) as { enabled: boolean }).enabled, false);
    assert.deepEqual(JSON.parse(fs.readFileSync(extensions, "utf8")).skills, { "haiku-writer": { enabled: false } });
    assert.doesNotMatch(t.harness.agent().deerflow.systemPrompt, /haiku-writer/, "a disabled skill leaves the prompt");
    assert.ok(
      !fs.existsSync(path.join(t.harness.setup.skills.viewDir, "custom", "haiku-writer")),
      "and the skills view",
    );
    const sandbox = t.harness.setup.sandbox.get(t.harness.setup.sandbox.acquire("t-after-disable"))!;
    assert.equal(
      sandbox.policy.resolve("/mnt/skills/custom/haiku-writer/SKILL.md", "read").ok &&
        fs.existsSync(sandbox.policy.skillsDir + "/custom/haiku-writer/SKILL.md"),
      false,
      "a new sandbox cannot read the disabled skill",
    );

    await fetch(`${t.url}/api/skills/haiku-writer`, json({ enabled: true }, "PUT"));
    assert.match(t.harness.agent().deerflow.systemPrompt, /haiku-writer/);
    assert.equal((await fetch(`${t.url}/api/skills/nope`, json({ enabled: true }, "PUT"))).status, 404);
    assert.equal((await fetch(`${t.url}/api/skills/haiku-writer`, json({ enabled: "yes" }, "PUT"))).status, 422);
  } finally {
    await t.close();
  }
});

test("messages page pages the thread's history backwards; token usage per thread and run", async () => {
  const t = await startTestServer({ script: (body) => ({ content: `re: ${lastUserText(body)}` }) });
  try {
    const thread = await t.client.threads.create();
    const runIds: string[] = [];
    for (const text of ["one", "two", "three"]) {
      const parts = await collect(
        t.client.runs.stream(thread.thread_id, "lead_agent", {
          input: { messages: [{ role: "user", content: text }] },
          streamMode: ["values"],
        }),
      );
      runIds.push((parts[0]!.data as { run_id: string }).run_id);
    }
    const base = `${t.url}/api/threads/${thread.thread_id}/messages/page`;
    const last = (await (await fetch(`${base}?limit=4`)).json()) as {
      data: Array<{
        seq: number;
        run_id: string | null;
        created_at: string | null;
        content: { type: string; content: string };
      }>;
      has_more: boolean;
      next_before_seq: number;
    };
    assert.deepEqual(
      last.data.map((entry) => entry.content.content),
      ["two", "re: two", "three", "re: three"],
    );
    // DeerFlow's frontend dedupes history rows by run id and message id: each row names its run.
    assert.deepEqual(
      last.data.map((entry) => entry.run_id),
      [runIds[1], runIds[1], runIds[2], runIds[2]],
    );
    assert.ok(!Number.isNaN(Date.parse(last.data[0]!.created_at ?? "")), "a user message has its time");
    assert.equal(last.has_more, true);
    const earlier = (await (await fetch(`${base}?limit=4&before_seq=${last.next_before_seq}`)).json()) as typeof last;
    assert.deepEqual(
      earlier.data.map((entry) => `${entry.content.type}:${entry.content.content}`),
      ["human:one", "ai:re: one"],
    );
    assert.deepEqual(
      earlier.data.map((entry) => entry.run_id),
      [runIds[0], runIds[0]],
    );
    assert.equal(earlier.has_more, false);
    assert.equal((await fetch(`${base}?limit=0`)).status, 422);
    assert.equal((await fetch(`${t.url}/api/threads/unknown-thread/messages/page`)).status, 404);

    const usage = (await (await fetch(`${t.url}/api/threads/${thread.thread_id}/token-usage`)).json()) as {
      total_tokens: number;
      total_runs: number;
      by_run: Array<{ run_id: string; total_tokens: number }>;
      by_model: Record<string, { runs: number; total_tokens: number }>;
    };
    assert.ok(usage.total_tokens > 0, "the fake model reports usage");
    assert.equal(usage.total_runs, 3);
    assert.deepEqual(usage.by_run.map((run) => run.run_id).sort(), [...runIds].sort());
    assert.equal(
      usage.by_run.reduce((sum, run) => sum + run.total_tokens, 0),
      usage.total_tokens,
      "runs add up to the thread",
    );
    assert.equal(usage.by_model.fake!.runs, 3);
  } finally {
    await t.close();
  }
});

test("mcp/config lists the servers with secrets masked; writing is off by default", async () => {
  const t = await startTestServer({
    yaml: [
      "mcp_servers:",
      "  local: {command: node, args: ['-e', 'process.exit(0)'], env: {TOKEN: stdio-secret}, session_init_timeout: 2}",
      "  remote: {transport: http, url: 'http://user:pw-secret@127.0.0.1:1/mcp?key=url-secret', headers: {Authorization: 'Bearer header-secret'}, session_init_timeout: 2}",
      "  off: {enabled: false, command: node}",
    ].join("\n"),
  });
  try {
    const response = await fetch(`${t.url}/api/mcp/config`);
    const text = await response.text();
    for (const secret of ["stdio-secret", "pw-secret", "url-secret", "header-secret"])
      assert.ok(!text.includes(secret), `${secret} is masked`);
    const body = JSON.parse(text) as { mcp_servers: Record<string, Record<string, unknown>>; writable: boolean };
    assert.deepEqual(body.mcp_servers.local!.env, { TOKEN: "***" });
    assert.equal(body.mcp_servers.local!.command, "node");
    assert.deepEqual(body.mcp_servers.remote!.headers, { Authorization: "***" });
    assert.equal(body.mcp_servers.off!.enabled, false);
    assert.equal(body.writable, false);
    assert.equal(
      (await fetch(`${t.url}/api/mcp/config`, json({ mcpServers: {} }, "PUT"))).status,
      403,
      "writes off by default: a stdio command over HTTP would run code",
    );
  } finally {
    await t.close();
  }
});

/**
 * Custom agents over HTTP: an SDK user creates an assistant with a soul and settings, runs it by its id
 * and the soul reaches the model; an update is a new version, `latest` goes back, delete removes it;
 * DeerFlow's `/api/agents` routes with its bodies see the same agents; bad input gets clear 4xx.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

const say = (text: string) => ({ messages: [{ role: "user", content: text }] });
const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
const systemText = (body: { messages: Array<{ role: string; content?: unknown }> }) => {
  const content = body.messages.find((message) => message.role === "system")?.content ?? "";
  return typeof content === "string" ? content : JSON.stringify(content);
};

test("SDK: create an assistant with a soul, run it by id, update (new version), latest, delete", async () => {
  const t = await startTestServer({ extraModels: ["{name: demo, use: demo}"] });
  try {
    const created = await t.client.assistants.create({
      graphId: "lead_agent",
      name: "poet",
      description: "Writes haiku",
      context: { soul: "You answer only in haiku.", tool_groups: ["file:read"] },
      metadata: { team: "verse" },
    });
    assert.equal(created.name, "poet");
    assert.equal(created.version, 1);
    assert.equal((created.context as { soul: string }).soul, "You answer only in haiku.");
    assert.equal(created.description, "Writes haiku");

    const thread = await t.client.threads.create();
    await t.client.runs.wait(thread.thread_id, created.assistant_id, { input: say("hello") });
    const request = t.fake.requests.at(-1)!;
    assert.match(systemText(request), /<soul>\\nYou answer only in haiku\.\\n<\/soul>/);
    const tools = ((request as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
      (x) => x.function.name,
    );
    assert.ok(tools.includes("read_file") && !tools.includes("write_file"), tools.join());

    const found = await t.client.assistants.search({ graphId: "lead_agent" });
    assert.deepEqual(
      found.map((assistant) => assistant.name),
      ["lead_agent", "poet"],
    );
    assert.equal(found[1]!.metadata?.team, "verse");

    const updated = await t.client.assistants.update(created.assistant_id, {
      context: { soul: "You answer only in limericks." },
    });
    assert.equal(updated.version, 2);
    await t.client.runs.wait(thread.thread_id, "poet", { input: say("again") });
    assert.match(systemText(t.fake.requests.at(-1)!), /limericks/);
    const versions = await t.client.assistants.getVersions(created.assistant_id);
    assert.deepEqual(
      versions.map((version) => version.version),
      [2, 1],
    );
    const back = await t.client.assistants.setLatest(created.assistant_id, 1);
    assert.equal(back.version, 1);
    assert.equal((back.context as { soul: string }).soul, "You answer only in haiku.");

    await t.client.assistants.delete(created.assistant_id);
    await assert.rejects(t.client.assistants.get(created.assistant_id), /HTTP 404/);
    await assert.rejects(t.client.runs.wait(thread.thread_id, created.assistant_id, { input: say("x") }), /HTTP 404/);
  } finally {
    await t.close();
  }
});

test("assistants and agents: bad names, duplicates, unknown settings, lead_agent, missing agents are clear 4xx", async () => {
  const t = await startTestServer();
  try {
    const post = (body: unknown) => fetch(`${t.url}/assistants`, json(body));
    const expect = async (response: Promise<Response>, status: number, pattern: RegExp) => {
      const got = await response;
      const text = await got.text();
      assert.equal(got.status, status, text);
      assert.match(text, pattern);
    };
    await expect(post({ graph_id: "lead_agent" }), 422, /Missing \\"name\\"/);
    await expect(post({ graph_id: "lead_agent", name: "bad name!" }), 422, /not valid/);
    await expect(post({ graph_id: "other", name: "x" }), 422, /Unknown graph_id/);
    await expect(
      post({ graph_id: "lead_agent", name: "x", context: { colour: "red" } }),
      422,
      /Unknown assistant setting/,
    );
    await expect(post({ graph_id: "lead_agent", name: "x", context: { model_name: "gpt-9" } }), 422, /gpt-9/);
    await expect(
      post({ graph_id: "lead_agent", name: "x", context: { tool_groups: ["lasers"] } }),
      422,
      /Unknown tool group/,
    );
    await expect(post({ graph_id: "lead_agent", name: "x" }), 200, /"name":"x"/);
    await expect(post({ graph_id: "lead_agent", name: "X" }), 409, /already exists/);
    await expect(post({ graph_id: "lead_agent", name: "x", if_exists: "do_nothing" }), 200, /"name":"x"/);
    await expect(fetch(`${t.url}/assistants/lead_agent`, json({ context: { soul: "y" } }, "PATCH")), 409, /built-in/);
    await expect(fetch(`${t.url}/assistants/nobody`, { method: "DELETE" }), 404, /not found/);
    await expect(fetch(`${t.url}/assistants/x/latest`, json({ version: 7 })), 404, /no version 7/);

    const api = (path: string, init?: RequestInit) => fetch(`${t.url}/api${path}`, init);
    await expect(api("/agents", json({ name: "x" })), 409, /already exists/);
    await expect(api("/agents", json({ name: "../etc" })), 422, /not valid/);
    await expect(api("/agents/check?name=bad%20name"), 422, /not valid/);
    await expect(api("/agents/nobody"), 404, /Agent 'nobody' not found/);
    await expect(api("/agents/nobody", json({ soul: "s" }, "PUT")), 404, /not found/);
    await expect(api("/agents/nobody", { method: "DELETE" }), 404, /not found/);
    await expect(api("/agents", json({ name: "y", model: "gpt-9" })), 422, /gpt-9/);
    await expect(api("/agents", json({ name: "y", model_settings: { temperature: 9 } })), 422, /temperature/);
    await expect(
      t.client.runs.wait(null, "lead_agent", { input: say("x"), context: { agent_name: "ghost" } }).then(
        () => new Response("answered", { status: 200 }),
        (error: Error) => new Response(error.message, { status: (error as { status?: number }).status ?? 0 }),
      ),
      404,
      /Agent \\"ghost\\" does not exist/,
    );
  } finally {
    await t.close();
  }
});

test("DeerFlow's /api/agents bodies: create, check, get, update, list, delete, user profile; features on", async () => {
  const t = await startTestServer();
  try {
    const api = async (path: string, init?: RequestInit) => {
      const response = await fetch(`${t.url}/api${path}`, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    };
    assert.equal((await api("/features")).body.agents_api.enabled, true);
    assert.deepEqual((await api("/agents/check?name=Helper")).body, { available: true, name: "helper" });
    const made = await api(
      "/agents",
      json({ name: "Helper", description: "Helps", soul: "Be kind.", skills: [], tool_groups: ["web", "bash"] }),
    );
    assert.equal(made.status, 201);
    assert.deepEqual(made.body, {
      name: "helper",
      description: "Helps",
      model: null,
      tool_groups: ["web", "bash"],
      skills: [],
      mcp_servers: null,
      subagents: null,
      model_settings: null,
      thinking_enabled: null,
      reasoning_effort: null,
      soul: "Be kind.",
    });
    assert.deepEqual((await api("/agents/check?name=helper")).body, { available: false, name: "helper" });
    const updated = await api("/agents/helper", json({ soul: "Be brief.", skills: null }, "PUT"));
    assert.equal(updated.body.soul, "Be brief.");
    assert.equal(updated.body.skills, null, "null clears the whitelist");
    assert.deepEqual(updated.body.tool_groups, ["web", "bash"], "absent keeps");
    assert.deepEqual(
      (await api("/agents")).body.agents.map((agent: { name: string }) => agent.name),
      ["helper"],
    );
    assert.equal((await t.client.assistants.get("helper")).name, "helper", "the agent is an assistant too");
    assert.equal((await api("/agents/helper", { method: "DELETE" })).status, 204);
    assert.deepEqual((await api("/agents")).body, { agents: [] });

    assert.deepEqual((await api("/user-profile")).body, { content: null });
    assert.deepEqual((await api("/user-profile", json({ content: "I like tea." }, "PUT"))).body, {
      content: "I like tea.",
    });
    assert.deepEqual((await api("/user-profile")).body, { content: "I like tea." });
  } finally {
    await t.close();
  }
});

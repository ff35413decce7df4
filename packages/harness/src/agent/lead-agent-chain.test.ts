import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseConfigText } from "../config/load-config.js";
import { createTempHome } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

const config = (extra = "") => parseConfigText(`sandbox: {use: local}\n${extra}`, { source: null, env: {} });

async function chainOf(options: Parameters<typeof createLeadAgent>[1], extra = ""): Promise<string[]> {
  const home = createTempHome();
  try {
    const agent = await createLeadAgent(config(extra), {
      home: home.path,
      env: {},
      checkpointer: false,
      onWarning: () => {},
      ...options,
    });
    await agent.close();
    return agent.deerflow.middlewareNames;
  } finally {
    home.cleanup();
  }
}

/** Every slot of the lead chain, in DeerFlow's order. */
const FULL_CHAIN = [
  "thread-data",
  "uploads",
  "sandbox",
  "tool-receipts",
  "tool-progress",
  "tool-result-sanitization",
  "tool-errors",
  "read-before-write",
  "dangling-tool-call",
  "input-sanitization",
  "tool-call-repair",
  "model-circuit",
  "empty-answer",
  "finish-reason",
  "model-retry",
  "skill-activation",
  "durable-context",
  "summarization",
  "todo-list",
  "title",
  "memory",
  "view-image",
  "subagent-limit",
  "background-tasks",
  "loop-detection",
  "token-usage",
  "context-guard",
  "clarification",
];

test("the full chain runs in DeerFlow's order, clarification last", async () => {
  const names = await chainOf(
    { is_plan_mode: true, subagent_enabled: true },
    "models:\n  - {name: v, use: openai, model: gpt-4o, api_key: x, supports_vision: true}\n",
  );
  assert.deepEqual(names, FULL_CHAIN);
});

test("conditional slots drop out when their switch is off", async () => {
  const names = await chainOf(
    {},
    "summarization: {enabled: false}\ntitle: {enabled: false}\nmemory: {enabled: false}\n",
  );
  // The conditional slots: summarization, title and memory by config; the plan, vision and subagent ones
  // by the run's context.
  const conditional = [
    "summarization",
    "todo-list",
    "title",
    "memory",
    "view-image",
    "subagent-limit",
    "background-tasks",
  ];
  assert.deepEqual(
    names,
    FULL_CHAIN.filter((name) => !conditional.includes(name)),
  );
});

test("tool_policies adds tool-policy right inside tool-errors", async () => {
  const names = await chainOf({}, "memory: {enabled: false}\ntool_policies: {bash: approval}\n");
  assert.deepEqual(names.slice(names.indexOf("tool-errors"), names.indexOf("tool-errors") + 2), [
    "tool-errors",
    "tool-policy",
  ]);
});

test("middlewares passed in code go right before clarification", async () => {
  const { createMiddleware } = await import("langchain");
  const custom = createMiddleware({ name: "audit" });
  const names = await chainOf({ middleware: [custom] }, "memory: {enabled: false}\n");
  assert.deepEqual(names.slice(-2), ["audit", "clarification"]);
});

test("config tools are loaded; an mcp_servers entry whose command does not exist is a warning, not a failure", async () => {
  const home = createTempHome();
  const warnings: string[] = [];
  try {
    const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../test/fixtures");
    const yaml =
      "sandbox: {use: local}\nmemory: {enabled: false}\ntools: [{name: shout, use: './config-tools.mjs:shout'}]\nmcp_servers: {github: {command: gh-mcp}}\n";
    const config = parseConfigText(yaml, { source: path.join(fixtures, "config.yaml"), env: {} });
    const agent = await createLeadAgent(config, {
      home: home.path,
      env: {},
      checkpointer: false,
      onWarning: (w) => warnings.push(w),
    });
    await agent.close();
    assert.ok(agent.deerflow.toolNames.includes("shout"));
    assert.ok(
      warnings.some((w) => /MCP server "github" .* did not start: the command was not found/.test(w)),
      warnings.join("\n"),
    );
  } finally {
    home.cleanup();
  }
});

test("subagent limits come from config and are clamped: max_concurrent to 1..4, max_total_per_run as configured", async () => {
  const home = createTempHome();
  try {
    const agent = await createLeadAgent(
      config("subagents: {enabled: true, max_concurrent: 1, max_total_per_run: 9}\nmemory: {enabled: false}\n"),
      { home: home.path, env: {}, checkpointer: false, onWarning: () => {} },
    );
    await agent.close();
    assert.equal(agent.deerflow.runtime.maxConcurrentSubagents, 1);
    assert.equal(agent.deerflow.runtime.maxTotalSubagents, 9);
    assert.throws(() => config("subagents: {max_total_per_run: 0}\n"), /max_total_per_run/);
  } finally {
    home.cleanup();
  }
});

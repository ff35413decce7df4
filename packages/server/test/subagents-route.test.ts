/**
 * `GET /api/subagents` over real HTTP: the built-in kind and config.yaml's custom kinds with their
 * limits (a per-kind override included), and the server-wide switch and caps.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestServer } from "./helpers.js";

type Kind = {
  name: string;
  builtin: boolean;
  max_turns: number;
  timeout_seconds: number;
  max_tokens: number | null;
  model: string | null;
  description: string;
};

test("subagents: lists the kinds config.yaml makes, with their limits and the server-wide caps", async () => {
  const t = await startTestServer({
    yaml: [
      "subagents:",
      "  enabled: true",
      "  max_concurrent: 2",
      "  timeout_seconds: 600",
      "  agents: {general-purpose: {max_turns: 40}}",
      "  custom_agents:",
      "    researcher: {description: Reads sources and reports, max_turns: 12, timeout_seconds: 120, token_budget: {max_tokens: 50000}}",
    ].join("\n"),
  });
  try {
    const response = await fetch(`${t.url}/api/subagents`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      enabled: boolean;
      max_concurrent: number;
      timeout_seconds: number;
      subagents: Kind[];
    };
    assert.equal(body.enabled, true);
    assert.equal(body.max_concurrent, 2);
    assert.equal(body.timeout_seconds, 600);
    const general = body.subagents.find((kind) => kind.name === "general-purpose")!;
    assert.equal(general.builtin, true);
    assert.equal(general.max_turns, 40, "the per-kind override");
    const researcher = body.subagents.find((kind) => kind.name === "researcher")!;
    assert.deepEqual(
      { ...researcher, disallowed_tools: undefined, tools: undefined },
      {
        name: "researcher",
        description: "Reads sources and reports",
        builtin: false,
        model: null,
        max_turns: 12,
        timeout_seconds: 120,
        max_tokens: 50000,
        disallowed_tools: undefined,
        tools: undefined,
      },
    );
  } finally {
    await t.close();
  }
});

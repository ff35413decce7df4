import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../errors.js";
import { createSubagentRegistry } from "./registry.js";

test("built-ins: general-purpose always (150 turns), bash only when the sandbox allows bash (60 turns)", () => {
  const plain = createSubagentRegistry();
  assert.deepEqual(plain.names(), ["general-purpose"]);
  assert.equal(plain.get("general-purpose")?.maxTurns, 150);
  assert.equal(plain.get("bash"), undefined);

  const withBash = createSubagentRegistry({ bashAllowed: true });
  assert.deepEqual(withBash.names(), ["general-purpose", "bash"]);
  assert.equal(withBash.get("bash")?.maxTurns, 60);
  for (const type of withBash.list()) {
    assert.deepEqual(type.disallowedTools, ["task", "ask_clarification", "present_files"]);
    assert.equal(type.model, undefined, "built-ins run on the parent's model");
  }
});

test("custom kinds get defaults, keep the never-allowed tools, and read 'inherit' as the parent's model", () => {
  const registry = createSubagentRegistry({
    customAgents: {
      researcher: {
        description: "Finds sources.\nSecond line.",
        system_prompt: "You research.",
        tools: ["web_search"],
        disallowed_tools: ["bash"],
      },
      coder: {
        description: "Writes code.",
        system_prompt: "You code.",
        model: "qwen3",
        max_turns: 20,
        timeout_seconds: 120,
      },
      helper: { model: "inherit" },
    },
  });
  assert.deepEqual(registry.names(), ["general-purpose", "researcher", "coder", "helper"]);
  const researcher = registry.get("researcher");
  assert.deepEqual(researcher, {
    name: "researcher",
    description: "Finds sources.\nSecond line.",
    systemPrompt: "You research.",
    tools: ["web_search"],
    disallowedTools: ["task", "ask_clarification", "present_files", "bash"],
    model: undefined,
    maxTurns: 50,
    timeoutSeconds: 900,
  });
  assert.deepEqual(
    [registry.get("coder")?.model, registry.get("coder")?.maxTurns, registry.get("coder")?.timeoutSeconds],
    ["qwen3", 20, 120],
  );
  assert.equal(registry.get("helper")?.model, undefined);
  assert.ok(registry.get("helper")?.systemPrompt.length);
});

test("global and per-kind settings override the built-ins' defaults", () => {
  const registry = createSubagentRegistry({
    bashAllowed: true,
    maxTurns: 40,
    timeoutSeconds: 600,
    overrides: { bash: { max_turns: 10, model: "fast" } },
  });
  const gp = registry.get("general-purpose");
  const bash = registry.get("bash");
  assert.deepEqual([gp?.maxTurns, gp?.timeoutSeconds, gp?.model], [40, 600, undefined]);
  assert.deepEqual([bash?.maxTurns, bash?.timeoutSeconds, bash?.model], [10, 600, "fast"]);
});

test("bad setups fail at construction with a ConfigError that says what to do", () => {
  assert.throws(
    () => createSubagentRegistry({ customAgents: { bash: { description: "x" } } }),
    (error: unknown) => error instanceof ConfigError && /name of a built-in/.test(error.message),
  );
  assert.throws(() => createSubagentRegistry({ customAgents: { "my agent": {} } }), ConfigError);
  assert.throws(
    () => createSubagentRegistry({ overrides: { ghost: { max_turns: 3 } } }),
    /Known subagents: general-purpose, bash\./,
  );
});

test("unknownTypeMessage names the available kinds and explains a disabled bash", () => {
  const registry = createSubagentRegistry({ customAgents: { researcher: {} } });
  assert.equal(
    registry.unknownTypeMessage("poet"),
    'Unknown subagent type "poet". Available: general-purpose, researcher.',
  );
  assert.match(
    registry.unknownTypeMessage("bash"),
    /does not allow shell commands.*Available: general-purpose, researcher\.$/,
  );
});

test("token budgets: subagents.token_budget for every kind, a kind's own budget replaces it, enabled: false removes it", () => {
  const registry = createSubagentRegistry({
    bashAllowed: true,
    tokenBudget: { enabled: true, max_tokens: 500_000 },
    overrides: { bash: { token_budget: { max_tokens: 50_000 } }, "general-purpose": { max_turns: 10 } },
    customAgents: {
      researcher: { description: "Finds sources." },
      unbounded: { description: "No cap.", token_budget: { enabled: false, max_tokens: 1000 } },
    },
  });
  assert.deepEqual(
    registry.list().map((type) => [type.name, type.maxTokens]),
    [
      ["general-purpose", 500_000],
      ["bash", 50_000],
      ["researcher", 500_000],
      ["unbounded", undefined],
    ],
  );
  assert.equal(
    createSubagentRegistry({ tokenBudget: { enabled: false, max_tokens: 9000 } }).get("general-purpose")?.maxTokens,
    undefined,
  );
  assert.equal(createSubagentRegistry().get("general-purpose")?.maxTokens, undefined, "no option, no budget");
});

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parseConfigText } from "../config/load-config.js";
import { emptyMemory } from "../memory/memory-schema.js";
import { createTempHome } from "../testing/index.js";
import { createLeadAgent } from "./create-lead-agent.js";

test("with the demo model, stored memory is still injected (only extraction is off)", async () => {
  const home = createTempHome();
  const memory = {
    ...emptyMemory(),
    facts: [
      {
        id: "fact_1",
        content: "Prefers answers in French",
        category: "preference",
        confidence: 0.95,
        createdAt: "",
        source: "t0",
      },
    ],
  };
  writeFileSync(path.join(home.path, "memory.json"), JSON.stringify(memory));
  const agent = await createLeadAgent(parseConfigText("title: {enabled: false}\n", { source: null, env: {} }), {
    home: home.path,
    env: {},
    checkpointer: false,
  });
  try {
    assert.equal(agent.deerflow.model.entry.use, "demo");
    assert.match(agent.deerflow.systemPrompt, /Prefers answers in French/);
  } finally {
    await agent.close();
    home.cleanup();
  }
});

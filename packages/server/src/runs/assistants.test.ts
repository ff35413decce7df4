import assert from "node:assert/strict";
import { test } from "node:test";
import {
  agentAssistantId,
  type Assistant,
  findAssistant,
  findRunAssistant,
  GRAPH_ID,
  LEAD_ASSISTANT_ID,
  leadAssistant,
} from "./assistants.js";

test("a run naming the lead agent resolves it without listing custom agents, as the full list would", () => {
  const custom: Assistant = {
    ...leadAssistant("2026-01-01T00:00:00.000Z"),
    assistant_id: agentAssistantId("writer", null),
    name: "writer",
    context: { agent_name: "writer" },
    config: { configurable: { agent_name: "writer" } },
  };
  const all = [leadAssistant("2026-01-01T00:00:00.000Z"), custom];
  let listed = 0;
  const list = () => {
    listed += 1;
    return all;
  };
  for (const id of [GRAPH_ID, LEAD_ASSISTANT_ID]) {
    const found = findRunAssistant(id, list);
    assert.deepEqual(found, {
      assistant_id: findAssistant(all, id)!.assistant_id,
      context: findAssistant(all, id)!.context,
    });
  }
  assert.equal(listed, 0);
  assert.equal(findRunAssistant("writer", list)?.assistant_id, custom.assistant_id);
  assert.deepEqual(findRunAssistant(custom.assistant_id, list)?.context, { agent_name: "writer" });
  assert.equal(findRunAssistant("nobody", list), undefined);
  assert.equal(listed, 3);
});

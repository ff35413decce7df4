import fs from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderMemoryBlock } from "./inject.js";
import { emptyMemory, isMemoryEmpty, parseMemoryText, parseStoredMemory } from "./memory-schema.js";

const fixture = fs.readFileSync(new URL("./fixtures/memory.v1.json", import.meta.url), "utf8");

test("the version 1.0 fixture (the format memory.json is written in) still parses unchanged", () => {
  const parsed = parseMemoryText(fixture);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.memory, JSON.parse(fixture));
});

test("a file with correction and confirmation fields parses unchanged, and the older fixture gains none of them", () => {
  const text = fs.readFileSync(new URL("./fixtures/memory.v1.corrections.json", import.meta.url), "utf8");
  const parsed = parseMemoryText(text);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.memory, JSON.parse(text));
  const older = parseMemoryText(fixture);
  assert.ok(older.ok);
  assert.equal("sourceError" in older.memory.facts[0]!, false);
  assert.equal("confirmationCount" in older.memory.facts[0]!, false);
});

test("partial sections and missing optional fields get defaults", () => {
  const parsed = parseMemoryText(
    JSON.stringify({
      userContext: { workContext: { summary: "x" } },
      history: {},
      facts: [{ id: "f", content: "c", confidence: 0.8 }],
    }),
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.memory.userContext.workContext, { summary: "x", updatedAt: "" });
  assert.deepEqual(parsed.memory.history.recentMonths, { summary: "", updatedAt: "" });
  assert.deepEqual(parsed.memory.facts[0], {
    id: "f",
    content: "c",
    category: "context",
    confidence: 0.8,
    createdAt: "",
    source: "unknown",
  });
});

test("a document without userContext, history or facts is refused", () => {
  for (const text of ["{}", '{"hello": 1}', '{"userContext": {}, "history": {}}', "null"]) {
    assert.equal(parseMemoryText(text).ok, false, text);
  }
});

test("isMemoryEmpty is true only without summaries and facts", () => {
  assert.equal(isMemoryEmpty(emptyMemory()), true);
  const parsed = parseMemoryText(fixture);
  assert.ok(parsed.ok);
  assert.equal(isMemoryEmpty(parsed.memory), false);
  assert.equal(
    isMemoryEmpty({
      ...emptyMemory(),
      history: { ...emptyMemory().history, earlierContext: { summary: "x", updatedAt: "" } },
    }),
    false,
  );
});

test("a summary that is not a string (a number, an object) is kept as text, not dropped", () => {
  const text = JSON.stringify({
    user: { topOfMind: { summary: 12345 }, workContext: { summary: { team: "infra" } }, personalContext: {} },
    history: { recentMonths: { summary: true }, earlierContext: { summary: null } },
    facts: [],
  });
  for (const parsed of [parseStoredMemory(text), parseMemoryText(text)]) {
    assert.ok(parsed.ok);
    assert.equal(parsed.memory.userContext.topOfMind.summary, "12345");
    assert.equal(parsed.memory.userContext.workContext.summary, '{"team":"infra"}');
    assert.equal(parsed.memory.history.recentMonths.summary, "true");
    assert.equal(parsed.memory.history.earlierContext.summary, "", "null means no summary");
    assert.match(renderMemoryBlock(parsed.memory, { maxTokens: 2000 }), /Current Focus: 12345/);
  }
  const stored = parseStoredMemory(text);
  assert.ok(stored.ok);
  assert.deepEqual(stored.skipped, []);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseMemoryUpdate } from "./parse-update.js";

const update = { newFacts: [{ content: "Prefers TypeScript", category: "preference", confidence: 0.9 }] };

test("a bare JSON object, a ```json fence, or JSON after a sentence are all read", () => {
  for (const text of [
    JSON.stringify(update),
    `\`\`\`json\n${JSON.stringify(update, null, 2)}\n\`\`\``,
    `Here is the update:\n\`\`\`\n${JSON.stringify(update)}\n\`\`\`\nDone.`,
    `Sure. ${JSON.stringify(update)}`,
  ]) {
    const parsed = parseMemoryUpdate(text);
    assert.ok(parsed.ok, text);
    assert.equal(parsed.update.newFacts?.[0]?.content, "Prefers TypeScript");
  }
});

test("missing or null sections are accepted (they mean no change)", () => {
  const parsed = parseMemoryUpdate(
    '{"user": {"workContext": null}, "history": null, "newFacts": [], "factsToRemove": ["fact_1", {"id": "fact_2"}]}',
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.update.factsToRemove, ["fact_1", { id: "fact_2" }]);
  assert.ok(parseMemoryUpdate("{}").ok);
});

test("malformed JSON, no JSON, and wrong shapes are refused with a reason", () => {
  const cases: [string, RegExp][] = [
    ["I could not find anything to remember.", /no JSON object/],
    ['{"newFacts": [{"content": "x", "confidence": 0.9},]}', /not valid JSON/],
    ['{"newFacts": [{"content": "x", "confidence": "high"}]}', /wrong shape at newFacts\.0\.confidence/],
    ['{"newFacts": {"content": "x"}}', /wrong shape at newFacts/],
    ['{"user": {"workContext": {"summary": 42, "shouldUpdate": true}}}', /wrong shape at user\.workContext\.summary/],
    ['{"facts": [{"content": "x"}], "summary": "y"}', /none of the expected keys \(got facts, summary\)/],
  ];
  for (const [text, reason] of cases) {
    const parsed = parseMemoryUpdate(text);
    assert.equal(parsed.ok, false, text);
    if (!parsed.ok) assert.match(parsed.reason, reason);
  }
});

test("a reply that quotes some JSON before the real update still yields the update", () => {
  const reply = [
    'The user pasted {"name": "demo", "port": 8080} from their config, which is task detail.',
    "```json",
    '{"example": true}',
    "```",
    "Here is the update:",
    "```json",
    '{"newFacts": [{"content": "Runs services on Kubernetes", "category": "context", "confidence": 0.9}]}',
    "```",
  ].join("\n");
  const parsed = parseMemoryUpdate(reply);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.reason);
  assert.equal(parsed.update.newFacts?.[0]?.content, "Runs services on Kubernetes");
  const bare = parseMemoryUpdate('Input looked like {"a": {"b": 1}}; update: {"factsToRemove": ["fact_1"]}');
  assert.ok(bare.ok, bare.ok ? "" : bare.reason);
  assert.deepEqual(bare.update.factsToRemove, ["fact_1"]);
});

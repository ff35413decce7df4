import { test } from "node:test";
import assert from "node:assert/strict";
import {
  type ApplyUpdateOptions,
  addManualFact,
  applyMemoryUpdate,
  capFacts,
  normaliseFactContent,
} from "./apply-update.js";
import { type Memory, type MemoryFact, emptyMemory } from "./memory-schema.js";

const now = new Date("2026-03-01T12:00:00.000Z");
let ids = 0;
const options: ApplyUpdateOptions = {
  threadId: "thread-7",
  factConfidenceThreshold: 0.7,
  maxFacts: 100,
  now,
  newFactId: () => `fact_n${++ids}`,
};

function fact(id: string, content: string, confidence: number, createdAt = "2026-01-01T00:00:00.000Z"): MemoryFact {
  return { id, content, category: "context", confidence, createdAt, source: "old" };
}

function memoryWith(...facts: MemoryFact[]): Memory {
  return { ...emptyMemory(), facts };
}

test("summaries marked shouldUpdate replace the old ones with a timestamp; others are left alone", () => {
  const before = emptyMemory();
  before.userContext.personalContext = { summary: "Speaks French", updatedAt: "2025-12-01" };
  const { memory, sectionsUpdated } = applyMemoryUpdate(
    before,
    {
      user: {
        workContext: { summary: "Engineer at Acme working on payment APIs.", shouldUpdate: true },
        personalContext: { summary: "ignored: shouldUpdate is false", shouldUpdate: false },
        topOfMind: { summary: "  ", shouldUpdate: true },
      },
      history: { recentMonths: { summary: "Migrated billing to TypeScript.", shouldUpdate: true } },
    },
    options,
  );
  assert.deepEqual(memory.userContext.workContext, {
    summary: "Engineer at Acme working on payment APIs.",
    updatedAt: now.toISOString(),
  });
  assert.deepEqual(memory.userContext.personalContext, { summary: "Speaks French", updatedAt: "2025-12-01" });
  assert.equal(memory.userContext.topOfMind.summary, "");
  assert.equal(memory.history.recentMonths.summary, "Migrated billing to TypeScript.");
  assert.deepEqual(sectionsUpdated, ["workContext", "recentMonths"]);
  assert.equal(memory.lastUpdated, now.toISOString());
  assert.equal(before.userContext.workContext.summary, "", "input not modified");
});

test("new facts at or above the threshold are added with category, thread source and time; lower ones dropped", () => {
  const { memory, added } = applyMemoryUpdate(
    emptyMemory(),
    {
      newFacts: [
        { content: " Prefers TypeScript ", category: "Preference", confidence: 0.9 },
        { content: "Works at Acme", category: "made-up-category", confidence: 0.7 },
        { content: "Might like Rust", category: "preference", confidence: 0.69 },
        { content: "   ", category: "context", confidence: 1 },
      ],
    },
    options,
  );
  assert.deepEqual(
    memory.facts.map(({ content, category, confidence, source, createdAt }) => ({
      content,
      category,
      confidence,
      source,
      createdAt,
    })),
    [
      {
        content: "Prefers TypeScript",
        category: "preference",
        confidence: 0.9,
        source: "thread-7",
        createdAt: now.toISOString(),
      },
      {
        content: "Works at Acme",
        category: "context",
        confidence: 0.7,
        source: "thread-7",
        createdAt: now.toISOString(),
      },
    ],
  );
  assert.equal(added.length, 2);
  assert.match(added[0]?.id ?? "", /^fact_/);
});

test("a restated fact (case, spacing, final period) is not added twice; it can raise the confidence", () => {
  const before = memoryWith(fact("fact_a", "Prefers TypeScript", 0.8));
  const { memory, added } = applyMemoryUpdate(
    before,
    {
      newFacts: [
        { content: "prefers  typescript.", confidence: 0.95 },
        { content: "Uses pnpm", confidence: 0.9 },
        { content: "uses PNPM", confidence: 0.8 },
      ],
    },
    options,
  );
  assert.deepEqual(
    memory.facts.map((f) => [f.id, f.content, f.confidence]),
    [
      ["fact_a", "Prefers TypeScript", 0.95],
      [added[0]?.id, "Uses pnpm", 0.9],
    ],
  );
  assert.equal(normaliseFactContent(" Prefers\tTypeScript. "), "prefers typescript");
});

test("factsToRemove removes the named facts (object or bare id); unknown ids are ignored", () => {
  const { memory, removed } = applyMemoryUpdate(
    memoryWith(
      fact("fact_a", "Uses pip", 0.9),
      fact("fact_b", "Likes tea", 0.9),
      fact("fact_c", "Lives in Paris", 0.9),
    ),
    {
      factsToRemove: [{ id: "fact_a" }, "fact_c", { id: "fact_zzz" }],
      newFacts: [{ content: "Uses uv, not pip", category: "correction", confidence: 0.95 }],
    },
    options,
  );
  assert.deepEqual(removed, ["fact_a", "fact_c"]);
  assert.deepEqual(
    memory.facts.map((f) => f.content),
    ["Likes tea", "Uses uv, not pip"],
  );
});

test("over maxFacts the lowest confidence goes first, then the oldest", () => {
  const facts = [
    fact("old-high", "a", 0.9, "2026-01-01"),
    fact("old-low", "b", 0.75, "2026-01-01"),
    fact("new-low", "c", 0.75, "2026-02-01"),
    fact("mid", "d", 0.8, "2026-01-15"),
  ];
  assert.deepEqual(
    capFacts(facts, 3).map((f) => f.id),
    ["old-high", "new-low", "mid"],
  );
  assert.deepEqual(
    capFacts(facts, 1).map((f) => f.id),
    ["old-high"],
  );

  const { memory, added } = applyMemoryUpdate(
    memoryWith(...facts),
    { newFacts: [{ content: "e", confidence: 0.85 }] },
    { ...options, maxFacts: 4 },
  );
  assert.deepEqual(
    memory.facts.map((f) => f.content),
    ["a", "c", "d", "e"],
  );
  assert.equal(added.length, 1);
});

test("an update that changes nothing returns the same memory object (so nothing is written)", () => {
  const before = memoryWith(fact("fact_a", "Prefers TypeScript", 0.9));
  const result = applyMemoryUpdate(
    before,
    {
      newFacts: [
        { content: "prefers typescript", confidence: 0.8 },
        { content: "guess", confidence: 0.3 },
      ],
    },
    options,
  );
  assert.equal(result.changed, false);
  assert.equal(result.memory, before);
});

test("a manual fact in a full memory replaces the least confident fact", () => {
  const before = memoryWith(fact("keep", "High confidence", 0.95), fact("drop", "Low confidence", 0.2));
  const added = { ...fact("manual", "Medium confidence", 0.8, now.toISOString()), source: "manual" };
  const result = addManualFact(before, added, 2);
  assert.ok("memory" in result, "stored");
  assert.deepEqual(
    result.memory.facts.map((f) => f.id),
    ["keep", "manual"],
  );
  assert.deepEqual(
    result.removed.map((f) => f.id),
    ["drop"],
  );
  assert.equal(result.memory.lastUpdated, now.toISOString());
  assert.equal(before.facts.length, 2, "the input is not modified");

  const weaker = addManualFact(before, { ...added, content: "Weakest", confidence: 0.1 }, 2);
  assert.deepEqual(weaker, { refused: { reason: "outranked", maxFacts: 2 } }, "the new fact itself would go");
});

test("a manual fact equal to a known one but for case and spacing is refused", () => {
  const before = memoryWith(fact("known", "User prefers dark mode", 0.9));
  const result = addManualFact(before, fact("manual", "  user prefers DARK   mode ", 0.9), 100);
  assert.deepEqual(result, { refused: { reason: "duplicate", existing: before.facts[0] } });
});

test("a correction keeps what was wrong as sourceError; other categories do not take one", () => {
  const { memory } = applyMemoryUpdate(
    emptyMemory(),
    {
      newFacts: [
        { content: "Installs packages with uv", category: "correction", confidence: 0.95, sourceError: " Used pip " },
        { content: "Likes tea", category: "preference", confidence: 0.9, sourceError: "Said coffee" },
        { content: "Runs tests with vitest", category: "correction", confidence: 0.95, sourceError: "  " },
      ],
    },
    options,
  );
  assert.equal(memory.facts[0]!.sourceError, "Used pip");
  assert.equal("sourceError" in memory.facts[1]!, false);
  assert.equal("sourceError" in memory.facts[2]!, false);
});

test("factsToReinforce confirms stored facts only when the user's words showed a confirmation", () => {
  const before = memoryWith(fact("f1", "Prefers tabs", 0.8), {
    ...fact("f2", "Uses vim", 0.9),
    lastConfirmedAt: "2026-01-01T00:00:00.000Z",
    confirmationCount: 2,
  });
  const update = { factsToReinforce: [{ id: "f1", reason: "said so again" }, "f2", { id: "missing" }] };

  const ignored = applyMemoryUpdate(before, update, options);
  assert.equal(ignored.changed, false);
  assert.deepEqual(ignored.reinforced, []);

  const confirmed = applyMemoryUpdate(before, update, { ...options, signals: ["reinforcement"] });
  assert.deepEqual(confirmed.reinforced, ["f1", "f2"]);
  assert.deepEqual(
    confirmed.memory.facts.map((f) => [f.id, f.confidence, f.lastConfirmedAt, f.confirmationCount]),
    [
      ["f1", 0.8, now.toISOString(), 1],
      ["f2", 0.9, now.toISOString(), 3],
    ],
  );
  assert.equal(confirmed.memory.facts.length, 2, "confirming adds no fact");
  assert.equal(before.facts[0]!.confirmationCount, undefined, "input not modified");
});

test("when memory is full, a fact the user keeps confirming outlasts an unconfirmed one of the same confidence", () => {
  const confirmed = {
    ...fact("used", "Prefers tabs", 0.75),
    lastConfirmedAt: "2026-02-20T00:00:00.000Z",
    confirmationCount: 3,
  };
  const facts = [fact("guess", "Might like Rust", 0.75, "2026-02-25"), confirmed, fact("sure", "Works at Acme", 0.9)];
  assert.deepEqual(
    capFacts(facts, 2, now).map((f) => f.id),
    ["used", "sure"],
  );
  // A confirmation long ago counts for little: a clearly more confident fact still wins.
  const stale = { ...confirmed, lastConfirmedAt: "2024-01-01T00:00:00.000Z" };
  assert.deepEqual(
    capFacts([stale, fact("surer", "Lives in Berlin", 0.85)], 1, now).map((f) => f.id),
    ["surer"],
  );
});

test("when memory is full, corrections keep a tenth of the slots even below the other facts' confidence", () => {
  const correction: MemoryFact = { ...fact("fix", "Use uv, not pip", 0.7), category: "correction" };
  const others = Array.from({ length: 10 }, (_, i) => fact(`f${i}`, `fact ${i}`, 0.9));
  const kept = capFacts([...others, correction], 10, now).map((f) => f.id);
  assert.equal(kept.length, 10);
  assert.ok(kept.includes("fix"), "the correction keeps its reserved slot");
  // Unused reserved slots go to the rest: without a correction, the ten best facts stay.
  assert.deepEqual(
    capFacts([...others, fact("low", "low", 0.7)], 10, now).map((f) => f.id),
    others.map((f) => f.id),
  );
});

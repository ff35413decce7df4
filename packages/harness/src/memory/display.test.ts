import { test } from "node:test";
import assert from "node:assert/strict";
import { formatMemoryForDisplay } from "./display.js";
import { emptyMemory } from "./memory-schema.js";

test("empty memory says so and names the file", () => {
  assert.equal(formatMemoryForDisplay(emptyMemory(), "/h/memory.json"), "Memory is empty (/h/memory.json).");
});

test("every summary and every fact is listed with its id, unescaped and unbudgeted", () => {
  const memory = emptyMemory();
  memory.lastUpdated = "2026-03-01T12:00:00.000Z";
  memory.userContext.workContext.summary = "Builds <payment> APIs";
  memory.history.longTermBackground.summary = "Ten years of backend work.";
  memory.facts = Array.from({ length: 30 }, (_, i) => ({
    id: `fact_${i}`,
    content: `Fact ${i}`,
    category: "knowledge",
    confidence: 0.8,
    createdAt: "2026-02-01T00:00:00Z",
    source: i === 0 ? "thread-9" : "unknown",
  }));
  const text = formatMemoryForDisplay(memory);
  assert.match(
    text,
    /^Memory, last updated 2026-03-01T12:00:00.000Z\n\nUser context\n {2}Work: Builds <payment> APIs\n\nHistory\n {2}Background: Ten years of backend work\.\n\nFacts \(30\)\n/,
  );
  assert.match(text, /\n {2}fact_0 {2}\[knowledge 0\.80\] {2}Fact 0 {2}\(from thread-9, 2026-02-01\)\n/);
  assert.match(text, /\n {2}fact_29 {2}\[knowledge 0\.80\] {2}Fact 29 {2}\(2026-02-01\)$/);
});

test("a correction shows what was wrong, and a confirmed fact how often the user confirmed it", () => {
  const memory = emptyMemory();
  memory.facts = [
    {
      id: "fact_uv",
      content: "Installs packages with uv",
      category: "correction",
      confidence: 0.95,
      createdAt: "2026-03-02T09:00:00.000Z",
      source: "thread-2",
      sourceError: "Suggested pip install",
      lastConfirmedAt: "2026-03-05T09:00:00.000Z",
      confirmationCount: 2,
    },
  ];
  assert.match(
    formatMemoryForDisplay(memory),
    /\n {2}fact_uv {2}\[correction 0\.95\] {2}Installs packages with uv {2}\(from thread-2, 2026-03-02, confirmed 2x, last 2026-03-05\)\n {6}was wrong: Suggested pip install$/,
  );
});

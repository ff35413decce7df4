import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createTokenCounter } from "../../model/tokens.js";
import { findMetTrigger, keepCutoff, messageBudget, sizeInTokens } from "./summarization-policy.js";

const counter = createTokenCounter();
const measure = { tokenCounter: counter };
const turns = (n: number, size = 40): BaseMessage[] =>
  Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? new HumanMessage("q".repeat(size)) : new AIMessage("a".repeat(size)),
  );

test("triggers use OR semantics and report the first one met", () => {
  const messages = turns(10);
  assert.equal(findMetTrigger([{ type: "messages", value: 11 }], messages, null, measure), null);
  const met = findMetTrigger(
    [
      { type: "tokens", value: 1_000_000 },
      { type: "messages", value: 10 },
    ],
    messages,
    null,
    measure,
  );
  assert.deepEqual(met, { type: "messages", value: 10 });
});

test("the projected durable context counts toward both message and token triggers", () => {
  const messages = turns(9);
  assert.equal(findMetTrigger([{ type: "messages", value: 10 }], messages, null, measure), null);
  assert.deepEqual(findMetTrigger([{ type: "messages", value: 10 }], messages, "earlier work", measure), {
    type: "messages",
    value: 10,
  });

  const tokens = counter(messages);
  const trigger = [{ type: "tokens" as const, value: tokens + 50 }];
  assert.equal(findMetTrigger(trigger, messages, null, measure), null);
  assert.deepEqual(findMetTrigger(trigger, messages, "s".repeat(400), measure), trigger[0]);
});

test("a token budget measures the messages, not the fixed overhead, and leaves the overhead room in the window", () => {
  const messages = turns(9);
  const tokens = counter(messages);
  const trigger = [{ type: "tokens" as const, value: tokens + 50 }];
  assert.equal(
    findMetTrigger(trigger, messages, null, { ...measure, overheadTokens: 10 * tokens }),
    null,
    "a system prompt and tools above the budget on their own do not fire it",
  );
  assert.equal(messageBudget(trigger[0]!, { ...measure, overheadTokens: 60 }), tokens + 50, "no window known");
  const window = { ...measure, overheadTokens: 60, maxInputTokens: tokens + 50 };
  assert.equal(messageBudget(trigger[0]!, window), tokens - 10, "capped at the window minus the overhead");
  assert.deepEqual(findMetTrigger(trigger, messages, null, window), trigger[0], "so the whole request still fits");
  assert.equal(messageBudget({ type: "fraction", value: 0.5 }, window), Math.floor((tokens + 50) / 2));
  assert.equal(messageBudget({ type: "tokens", value: 10 }, { ...window, overheadTokens: 10 * tokens }), 0);
});

test("a fraction trigger uses max_input_tokens and never fires without it", () => {
  const messages = turns(10, 400);
  const tokens = counter(messages);
  const fraction = [{ type: "fraction" as const, value: 0.8 }];
  assert.equal(findMetTrigger(fraction, messages, null, measure), null);
  assert.ok(findMetTrigger(fraction, messages, null, { ...measure, maxInputTokens: Math.floor(tokens / 0.8) }));
  assert.equal(findMetTrigger(fraction, messages, null, { ...measure, maxInputTokens: tokens * 2 }), null);
  assert.equal(sizeInTokens({ type: "fraction", value: 0.5 }, 1000), 500);
});

test("keep messages N cuts before the last N", () => {
  assert.equal(keepCutoff(turns(30), { type: "messages", value: 10 }, measure), 20);
  assert.equal(keepCutoff(turns(5), { type: "messages", value: 10 }, measure), 0);
});

test("keep tokens keeps the longest tail within budget, and at least the last message", () => {
  const messages = turns(20);
  const one = counter([messages[0]!]);
  assert.equal(keepCutoff(messages, { type: "tokens", value: one * 5 }, measure), 15);
  assert.equal(keepCutoff(messages, { type: "tokens", value: 1 }, measure), 19);
  assert.equal(keepCutoff(messages, { type: "tokens", value: 1_000_000 }, measure), 0);
  assert.equal(keepCutoff(messages, { type: "fraction", value: 0.5 }, { ...measure, maxInputTokens: one * 10 }), 15);
  assert.equal(
    keepCutoff(turns(30), { type: "fraction", value: 0.5 }, measure),
    10,
    "no window known: keep the last 20",
  );
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { toWire, wireJson, wireValues } from "./serialize.js";

const fresh = (value: unknown) => JSON.stringify(toWire(value) ?? null);

test("the event text is toWire's JSON, for messages seen before too, and follows a field given a new value", () => {
  const human = new HumanMessage({ content: "hi", id: "h1", additional_kwargs: { at: 1 } });
  const ai = new AIMessage({
    content: "",
    id: "a1",
    tool_calls: [{ id: "c1", name: "note", args: { text: "x" }, type: "tool_call" }],
    usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
  });
  const tool = new ToolMessage({ content: "done", tool_call_id: "c1", name: "note" });
  const values = { messages: [human, ai, tool], when: new Date(0), big: 10n, skip: () => 1, gone: undefined };
  const first = wireJson(values);
  assert.equal(first, fresh(values));
  assert.equal(wireJson(values), first);
  assert.equal(JSON.stringify(wireValues(values)), first);
  assert.equal(wireJson({ update: { messages: [ai] } }), fresh({ update: { messages: [ai] } }));

  // Fields assigned anew (as middleware does), and a key added to the constructor arguments.
  human.additional_kwargs = { at: 2 };
  ai.id = "a2";
  (ai as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.id = "a2";
  tool.content = "done again";
  (tool as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs.artifact = { rows: 1 };
  (tool as unknown as { artifact: unknown }).artifact = { rows: 1 };
  const second = wireJson(values);
  assert.equal(second, fresh(values));
  assert.notEqual(second, first);
  assert.match(second, /"at":2/);
  assert.match(second, /"id":"a2"/);
  assert.match(second, /done again/);
  assert.match(second, /"rows":1/);
});

test("a message deep in a value is cut at the same depth whether converted before or not", () => {
  const message = new HumanMessage({ content: [{ type: "text", text: "deep" }], id: "d1" });
  let nested: unknown = message;
  for (let level = 0; level < 63; level++) nested = { inner: nested };
  // Seen shallow first, then where its content passes the depth limit.
  assert.equal(wireJson({ messages: [message] }), fresh({ messages: [message] }));
  assert.equal(wireJson(nested), fresh(nested));
  assert.match(fresh(nested), /"content":\[null\]|"content":null|"text":null/);
  // And seen deep first, then shallow.
  const other = new HumanMessage({ content: [{ type: "text", text: "deep" }], id: "d2" });
  let deep: unknown = other;
  for (let level = 0; level < 63; level++) deep = { inner: deep };
  assert.equal(wireJson(deep), fresh(deep));
  assert.equal(wireJson([other]), fresh([other]));
  assert.match(wireJson([other]), /"text":"deep"/);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { compactRequest, OMITTED_NOTE, requestChars } from "./request-compaction.js";
import { boundToolResults, cutMiddle, fairShare } from "./tool-result-budget.js";

const result = (id: string, size: number) =>
  new ToolMessage({
    content: `${id}:` + "x".repeat(size - id.length - 4) + "END",
    tool_call_id: id,
    name: "dump",
    id: `m-${id}`,
  });
const call = (...ids: string[]) =>
  new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "dump", args: {} })) });

test("cutMiddle keeps head and tail around a marker and never splits a surrogate pair", () => {
  const cut = cutMiddle(`HEAD${"a".repeat(5000)}TAIL`, 1000);
  assert.ok(cut.startsWith("HEAD") && cut.endsWith("TAIL"));
  assert.match(cut, /\[\.\.\. \d+ characters of this tool result left out/);
  const emoji = cutMiddle("😀".repeat(1000), 101);
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(emoji), "no lone surrogate");
  assert.equal(cutMiddle("short", 10), "short");
});

test("fairShare leaves small results whole and splits the rest of the budget among large ones", () => {
  assert.equal(fairShare([100, 200], 1000), Number.POSITIVE_INFINITY);
  assert.equal(fairShare([100, 5000, 5000], 1100), 500);
});

test("each result is cut to the per-result limit and all together to the per-request limit; ids and names are kept", () => {
  const messages = [
    new HumanMessage("go"),
    call("a", "b", "c"),
    result("a", 500),
    result("b", 30_000),
    result("c", 30_000),
  ];
  const single = boundToolResults(messages, { perResultChars: 20_000, perRequestChars: 1_000_000 });
  assert.equal(single.cut, 2);
  assert.ok(single.messages[3]!.text.length < 20_200);
  const shared = boundToolResults(messages, { perResultChars: 20_000, perRequestChars: 10_500 });
  assert.equal(shared.messages[2]!.text.length, 500, "the small result stays whole");
  assert.ok(shared.messages[4]!.text.length < 5000 + 200);
  const cut = shared.messages[4] as ToolMessage;
  assert.deepEqual([cut.tool_call_id, cut.name, cut.id], ["c", "dump", "m-c"]);
  assert.ok(cut.text.endsWith("END"));
  assert.equal((messages[4] as ToolMessage).text.length, 30_000, "the input messages are not changed");
});

test("a hard compaction cuts tool results further, then leaves out the oldest messages but keeps the task and pairs", () => {
  const durable = new HumanMessage({
    content: "<summary>earlier</summary>",
    additional_kwargs: { hide_from_ui: true },
  });
  const messages = [
    durable,
    new HumanMessage("old question"),
    call("a"),
    result("a", 9000),
    new AIMessage("old answer"),
    new HumanMessage("the task"),
    call("b", "c"),
    result("b", 9000),
    result("c", 9000),
  ];
  const light = compactRequest(messages, 100_000, { perResultChars: 20_000, perRequestChars: 100_000 });
  assert.equal(light.dropped, 0);
  assert.ok(light.messages.filter((m) => m.type === "tool").every((m) => m.text.length <= 2200));
  const hard = compactRequest(messages, 2000, { perResultChars: 20_000, perRequestChars: 100_000 });
  assert.ok(hard.dropped > 0);
  assert.equal(hard.messages[0], durable, "injected context stays first");
  assert.equal(hard.messages[1]!.text, OMITTED_NOTE);
  assert.ok(hard.messages.some((m) => m.text === "the task"));
  assert.ok(requestChars(hard.messages) <= 2000 + OMITTED_NOTE.length);
  assert.notEqual(hard.messages[2]!.type, "tool", "the kept part does not start with an orphaned result");
});

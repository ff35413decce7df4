import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, createAgent } from "langchain";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadStateSchema } from "../state/thread-state.js";
import { cleanTitle, fallbackTitle, firstExchange, renderTitlePrompt, titleMiddleware } from "./title.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import { TITLE_DEFAULTS } from "../config/defaults.js";

const limits = { maxWords: 8, maxChars: 80 };

test("cleanTitle strips thinking, labels, quotes and a final period, and applies the limits", () => {
  assert.equal(cleanTitle('<think>user wants weather</think>\n"Weather in Lyon."', limits), "Weather in Lyon");
  assert.equal(
    cleanTitle("Title: **Quarterly sales report**\nBecause the user asked…", limits),
    "Quarterly sales report",
  );
  assert.equal(
    cleanTitle("one two three four five six seven eight nine ten", limits),
    "one two three four five six seven eight",
  );
  assert.equal(cleanTitle("A".repeat(100), limits), "A".repeat(80));
  assert.equal(cleanTitle("<think>only thinking", limits), "");
  assert.equal(cleanTitle('  ""  ', limits), "");
});

test("fallbackTitle is the first 50 characters of the message plus ..., or New Conversation", () => {
  assert.equal(fallbackTitle("  What is   the weather?  "), "What is the weather?");
  const long = "Please write a detailed report about the quarterly sales figures for Europe";
  assert.equal(fallbackTitle(long), `${long.slice(0, 50).trimEnd()}...`, "the ellipsis is not counted in the 50");
  assert.equal(fallbackTitle("x".repeat(200), 60), `${"x".repeat(50)}...`);
  // A smaller max_chars makes room for the ellipsis inside it.
  assert.equal(fallbackTitle("x".repeat(200), 52), `${"x".repeat(49)}...`);
  assert.equal(fallbackTitle("x".repeat(200), 50), `${"x".repeat(47)}...`);
  assert.equal(fallbackTitle(long, 20), `${long.slice(0, 17).trimEnd()}...`);
  assert.equal(fallbackTitle(""), "New Conversation");
});

test("the default limits are 6 words and 60 characters", () => {
  const tenWords = "one two three four five six seven eight nine ten";
  assert.equal(
    cleanTitle(tenWords, { maxWords: TITLE_DEFAULTS.max_words, maxChars: TITLE_DEFAULTS.max_chars }),
    "one two three four five six",
  );
  assert.deepEqual({ ...TITLE_DEFAULTS }, { max_words: 6, max_chars: 60 });
});

test("titles never exceed max_chars and never cut a character or grapheme in half", () => {
  const family = "👨‍👩‍👧"; // one grapheme of five code points
  const long = `${"word ".repeat(20)}end`;
  for (const maxChars of [10, 11, 12, 20, 49, 50, 51]) {
    assert.ok([...fallbackTitle(long, maxChars)].length <= maxChars, `fallback over ${maxChars}`);
    assert.ok([...cleanTitle("x".repeat(300), { maxWords: 8, maxChars })].length <= maxChars);
  }
  const flags = "🇫🇷".repeat(30);
  for (const title of [fallbackTitle(flags, 10), cleanTitle(flags, { maxWords: 8, maxChars: 11 })]) {
    assert.match(title.replace(/\.\.\.$/, ""), /^(🇫🇷)+$/u, `a flag was cut in half: ${title}`);
  }
  const families = fallbackTitle(family.repeat(20), 12);
  assert.ok([...families].length <= 12);
  assert.equal(families.replace(/\.\.\.$/, "").replaceAll(family, ""), "");
  assert.equal(cleanTitle(`abc${"é".repeat(20)}`, { maxWords: 8, maxChars: 10 }).normalize("NFC").length <= 10, true);
});

test("the model's <think> block never reaches the title prompt", () => {
  const exchange = firstExchange([
    new HumanMessage("Plan a trip to Lyon"),
    new AIMessage("<think>The user is secretly planning to quit their job.</think>Here is a 3-day plan for Lyon."),
  ]);
  assert.deepEqual(exchange, { user: "Plan a trip to Lyon", assistant: "Here is a 3-day plan for Lyon." });
  const unclosed = firstExchange([new HumanMessage("hi"), new AIMessage("Hello!<think>still thinking")]);
  assert.equal(unclosed?.assistant, "Hello!");
});

test("renderTitlePrompt fills the placeholders once and cuts each side to 500 characters", () => {
  const prompt = renderTitlePrompt("{max_words}|{user_msg}|{assistant_msg}", {
    maxWords: 6,
    userMessage: "say {assistant_msg} $&",
    assistantMessage: "x".repeat(600),
  });
  assert.equal(prompt, `6|say {assistant_msg} $&|${"x".repeat(500)}`);
});

test("firstExchange pairs the first visible user message with the first AI text after it", () => {
  const exchange = firstExchange([
    new HumanMessage({ content: "hidden", additional_kwargs: { hide_from_ui: true } }),
    new HumanMessage({ content: "<uploaded_files>\n- a.csv\n</uploaded_files>\nSummarize a.csv" }),
    new AIMessage({ content: "", tool_calls: [{ id: "c", name: "read_file", args: {}, type: "tool_call" }] }),
    new AIMessage("It has 3 rows."),
  ]);
  assert.deepEqual(exchange, { user: "Summarize a.csv", assistant: "It has 3 rows." });
  assert.equal(firstExchange([new HumanMessage("hi")]), undefined);
});

function agentWith(middleware: ReturnType<typeof titleMiddleware>, replies: string[]) {
  const model = new ScriptedChatModel(replies.map((reply, i) => new AIMessage({ id: `lead-${i}`, content: reply })));
  return createAgent({
    model,
    tools: [],
    stateSchema: ThreadStateSchema,
    middleware: [middleware],
    checkpointer: new MemorySaver(),
  });
}

test("a thread gets a model title after its first exchange, never regenerated, and the title never streams", async () => {
  const titleModel = new ScriptedChatModel([
    new AIMessage({ id: "title-1", content: '"Lyon weather today."' }),
    new AIMessage({ id: "title-2", content: "A different title" }),
  ]);
  const agent = agentWith(titleMiddleware({ model: titleModel }), ["It is sunny in Lyon.", "Tomorrow too."]);
  const config = { configurable: { thread_id: "title-1" } };

  const streamed: string[] = [];
  const stream = await agent.stream(
    { messages: [new HumanMessage({ id: "h-1", content: "Weather in Lyon?" })] },
    { ...config, streamMode: "messages" },
  );
  for await (const [message] of stream) streamed.push(message.text);

  assert.equal((await agent.graph.getState(config)).values.title, "Lyon weather today");
  assert.ok(streamed.includes("It is sunny in Lyon."), "the answer streams");
  assert.ok(!streamed.some((text) => text.includes("Lyon weather today")), "the title call does not stream");
  const prompt = titleModel.calls[0]?.messages[0]?.text ?? "";
  assert.ok(prompt.includes("User: Weather in Lyon?") && prompt.includes("Assistant: It is sunny in Lyon."));

  await agent.invoke({ messages: [new HumanMessage({ id: "h-2", content: "And tomorrow?" })] }, config);
  assert.equal((await agent.graph.getState(config)).values.title, "Lyon weather today");
  assert.equal(titleModel.callCount, 1, "no second title call");
});

test("without a model, or when it fails, the title is the start of the user's message", async () => {
  const noModel = agentWith(titleMiddleware(), ["Sure."]);
  const first = await noModel.invoke(
    {
      messages: [new HumanMessage({ id: "h-1", content: "Draft an email to the whole team about the Friday offsite" })],
    },
    { configurable: { thread_id: "t-a" } },
  );
  assert.equal(first.title, "Draft an email to the whole team about the Friday...");

  const warnings: string[] = [];
  const failing = new ScriptedChatModel([new Error("503 upstream")]);
  const broken = agentWith(titleMiddleware({ model: failing, onWarning: (w) => warnings.push(w) }), ["Hello!"]);
  const second = await broken.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Hi there" })] },
    { configurable: { thread_id: "t-b" } },
  );
  assert.equal(second.title, "Hi there");
  assert.match(warnings[0] ?? "", /503 upstream/);
});

test("the default limits reach a model title, and an invalid prompt template skips the model call", async () => {
  const titleModel = new ScriptedChatModel([new AIMessage("one two three four five six seven eight")]);
  const agent = agentWith(titleMiddleware({ model: titleModel }), ["Sure."]);
  const result = await agent.invoke(
    { messages: [new HumanMessage({ id: "h-1", content: "Count to eight" })] },
    { configurable: { thread_id: "t-defaults" } },
  );
  assert.equal(result.title, "one two three four five six");

  for (const [index, promptTemplate] of ["Title for {usr_msg}", "A title please"].entries()) {
    const unused = new ScriptedChatModel([new AIMessage("Should not be asked")]);
    const warnings: string[] = [];
    const middleware = titleMiddleware({ model: unused, promptTemplate, onWarning: (w) => warnings.push(w) });
    const invalid = await agentWith(middleware, ["Sure."]).invoke(
      { messages: [new HumanMessage({ id: "h-1", content: "Write tests for the parser" })] },
      { configurable: { thread_id: `t-template-${index}` } },
    );
    assert.equal(invalid.title, "Write tests for the parser", promptTemplate);
    assert.equal(unused.callCount, 0, `no model call with ${promptTemplate}`);
    assert.match(warnings.join("\n"), /prompt template/);
  }
});

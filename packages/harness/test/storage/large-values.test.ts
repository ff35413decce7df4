/**
 * Large values once: a big tool result or user message is not written again into every later
 * checkpoint, a refused 10 MB tool argument does not add hundreds of MB, and every read (state,
 * history, the model's next request) still sees the full text.
 */
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { test } from "node:test";
import { AIMessage, BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import Database from "better-sqlite3";
import { z } from "zod";
import { Send } from "@langchain/langgraph";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import { collectLargeValues, createLargeValueSerde } from "../../src/storage/large-values.js";
import { ScriptedChatModel } from "../../src/testing/index.js";
import { callOnceThenAnswer, loopingModel, openLargeValueHarness } from "./large-values-setup.js";

const fileMb = (file: string) => {
  const db = new Database(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return statSync(file).size / 2 ** 20;
};

test("a 200 KB tool result is stored once across many steps and turns, and reads back whole", async () => {
  const big = `BEGIN ${"observation ".repeat((200 * 1024) / 12)} END`;
  const fetchTool = tool(async () => big, { name: "fetch_doc", description: "Fetches the doc.", schema: z.object({}) });
  const chatModel = loopingModel(callOnceThenAnswer("fetch_doc", {}, "read it"));
  // retention `all`: every step's checkpoint stays, the worst case for repetition.
  const { harness, agent, thread, close } = await openLargeValueHarness({ chatModel, tools: [fetchTool] });
  try {
    for (let turn = 1; turn <= 8; turn++)
      await agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, thread);
    const rows = (
      new Database(harness.setup.store!.file, { readonly: true })
        .prepare("SELECT COUNT(*) AS n FROM checkpoints")
        .get() as { n: number }
    ).n;
    assert.ok(rows > 40, `every step kept (${rows} checkpoints)`);
    // Without the store-once path: ~rows × 200 KB = 8+ MB. With it: the value once, plus small checkpoints.
    assert.ok(fileMb(harness.setup.store!.file) < 2, `file is ${fileMb(harness.setup.store!.file).toFixed(1)} MB`);
    const state = await agent.graph.getState(thread);
    const tools = (state.values as { messages: BaseMessage[] }).messages.filter((m) => m.getType() === "tool");
    assert.ok(tools[0]!.content === big, "the state reads back the full text");
    // The model sees what it saw before (context-guard bounds long results in requests, as it always did).
    const lastRequest = chatModel.calls.at(-1)!.messages.filter((m) => m.getType() === "tool");
    assert.ok(String(lastRequest[0]!.content).startsWith("BEGIN observation"));
  } finally {
    await close();
  }
});

test("a refused 10 MB tool argument does not add hundreds of MB", async () => {
  const huge = "x".repeat(10 * 1024 * 1024);
  const save = tool(
    async ({ text }: { text: string }) =>
      text.length > 1024 * 1024 ? `Error: ${text.length} characters is too much to save; at most 1 MiB.` : "saved",
    {
      name: "save_text",
      description: "Saves text.",
      schema: z.object({ text: z.string() }),
    },
  );
  const chatModel = loopingModel(callOnceThenAnswer("save_text", { text: huge }, "too big, sorry"));
  const { harness, agent, thread, close } = await openLargeValueHarness({ chatModel, tools: [save] });
  try {
    for (let turn = 1; turn <= 3; turn++)
      await agent.invoke({ messages: [{ role: "user", content: `turn ${turn}` }] }, thread);
    const mb = fileMb(harness.setup.store!.file);
    assert.ok(mb < 40, `file is ${mb.toFixed(1)} MB after 3 turns of every step kept`);
    const state = await agent.graph.getState(thread);
    const call = (state.values as { messages: BaseMessage[] }).messages.find((m) => m.getType() === "ai") as {
      tool_calls?: { args: { text: string } }[];
    };
    assert.equal(call.tool_calls?.[0]?.args.text.length, huge.length);
  } finally {
    await close();
  }
});

test("each message of a checkpoint is stored once: checkpoints carry references, history and state read back the same", async () => {
  const chatModel = new ScriptedChatModel([{ content: `noted, ${"a reply of some length ".repeat(12)}` }], {
    loop: true,
  });
  const { harness, agent, thread, close } = await openLargeValueHarness({ chatModel });
  try {
    const said = (turn: number) => `turn ${turn}: ${"a user line of some length ".repeat(10)}`;
    for (let turn = 1; turn <= 6; turn++)
      await agent.invoke({ messages: [{ role: "user", content: said(turn) }] }, thread);
    const db = new Database(harness.setup.store!.file, { readonly: true });
    try {
      const blobs = (
        db.prepare("SELECT CAST(checkpoint AS TEXT) AS text FROM checkpoints").all() as { text: string }[]
      ).map((row) => row.text);
      // Without it, the first user line is in every checkpoint after its turn began; now only in the run's
      // input checkpoint, as the raw input of `__start__` (not a message yet).
      assert.deepEqual(
        blobs.filter((text) => text.includes("turn 1: a user line")).map((text) => text.includes('"__start__"')),
        [true],
      );
      const stored = (db.prepare("SELECT body FROM large_values").all() as { body: string }[]).filter((row) =>
        row.body.includes("turn 1: a user line"),
      );
      // Once per form: as given, and as the chain stamped it (name and timestamp) on its first step.
      assert.equal(stored.length, 2, "the first user line is stored once per form");
    } finally {
      db.close();
    }
    const state = await agent.graph.getState(thread);
    const messages = (state.values as { messages: BaseMessage[] }).messages;
    assert.equal(messages.length, 12);
    assert.deepEqual(
      messages.filter((m) => m.getType() === "human").map((m) => m.content),
      [1, 2, 3, 4, 5, 6].map(said),
    );
    let earlier = 0;
    for await (const snapshot of agent.graph.getStateHistory(thread)) {
      const count = ((snapshot.values as { messages?: BaseMessage[] }).messages ?? []).length;
      if (count > 0) earlier++;
    }
    assert.ok(earlier > 12, `history reads every checkpoint back (${earlier} with messages)`);
  } finally {
    await close();
  }
});

test("collecting unreferenced values keeps the long strings that stored messages refer to", async () => {
  const big = `BEGIN ${"observation ".repeat((40 * 1024) / 12)} END`;
  const fetchTool = tool(async () => big, { name: "fetch_doc", description: "Fetches the doc.", schema: z.object({}) });
  const chatModel = loopingModel(callOnceThenAnswer("fetch_doc", {}, "read it"));
  const { harness, agent, thread, close } = await openLargeValueHarness({
    chatModel,
    tools: [fetchTool],
    retention: "latest",
  });
  try {
    await agent.invoke({ messages: [{ role: "user", content: "fetch it" }] }, thread);
    await harness.afterRun("t1");
    const db = new Database(harness.setup.store!.file);
    collectLargeValues(db);
    db.close();
    const state = await agent.graph.getState(thread);
    const tools = (state.values as { messages: BaseMessage[] }).messages.filter((m) => m.getType() === "tool");
    assert.equal(tools[0]!.content, big);
  } finally {
    await close();
  }
});

test("a message already stored is not serialized again by later checkpoints, unless it changed", async () => {
  const db = new Database(":memory:");
  const inner = new JsonPlusSerializer();
  let messagesSerialized = 0;
  const counting = Object.create(inner) as JsonPlusSerializer;
  counting.dumpsTyped = async (value: unknown) => {
    if (value instanceof BaseMessage) messagesSerialized++;
    return inner.dumpsTyped(value);
  };
  const serde = createLargeValueSerde(db, counting);
  const long = (text: string) => `${text} ${"padding ".repeat(40)}`;
  const question = new HumanMessage({ id: "h1", content: long("question") });
  const answer = new AIMessage({ id: "a1", content: long("answer") });
  const short = new AIMessage({ id: "a0", content: "ok" });
  const checkpoint = (messages: BaseMessage[]) => ({ v: 4, id: "c", channel_values: { messages } });
  const readBack = async (messages: BaseMessage[]) => {
    const [type, data] = await serde.dumpsTyped(checkpoint(messages));
    const back = (await serde.loadsTyped(type, data)) as ReturnType<typeof checkpoint>;
    return back.channel_values.messages.map((m) => String(m.content));
  };
  try {
    assert.deepEqual(await readBack([question, short]), [long("question"), "ok"]);
    assert.equal(messagesSerialized, 2);
    // The next steps' checkpoints: only the new message is serialized.
    assert.deepEqual(await readBack([question, short, answer]), [long("question"), "ok", long("answer")]);
    assert.equal(messagesSerialized, 3);
    assert.deepEqual(await readBack([question, short, answer]), [long("question"), "ok", long("answer")]);
    assert.equal(messagesSerialized, 3);
    // A message given new content is stored again and reads back as it is now.
    answer.content = long("answer, revised");
    assert.deepEqual(await readBack([question, short, answer]), [long("question"), "ok", long("answer, revised")]);
    assert.equal(messagesSerialized, 4);
    // Messages read back from a checkpoint are written into the next one as the references they came from.
    const [type, data] = await serde.dumpsTyped(checkpoint([question, short, answer]));
    const read = (await serde.loadsTyped(type, data)) as ReturnType<typeof checkpoint>;
    const [, again] = await serde.dumpsTyped(read);
    assert.equal(messagesSerialized, 4);
    assert.equal(new TextDecoder().decode(again), new TextDecoder().decode(data));
  } finally {
    db.close();
  }
});

test("a Send carrying the state writes its messages as references, and reads back as the plain serializer's", async () => {
  const db = new Database(":memory:");
  const plain = new JsonPlusSerializer();
  const serde = createLargeValueSerde(db);
  // langchain's agent sends each tool call to the tool node with the whole state: n calls, n copies.
  const calls = Array.from({ length: 200 }, (_, i) => ({ id: `call_${i}`, name: "ls", args: { path: `/mnt/${i}` } }));
  const question = new HumanMessage({ id: "h1", content: "list them all" });
  const answer = new AIMessage({ id: "a1", content: "", tool_calls: calls });
  const sends = calls.map((call) => new Send("tools", { messages: [question, answer], lg_tool_call: call }));
  try {
    const written: Uint8Array[] = [];
    for (const send of sends) written.push((await serde.dumpsTyped(send))[1]);
    const [, plainFirst] = await plain.dumpsTyped(sends[0]);
    assert.ok(plainFirst.length > 10_000, `the plain serializer writes the whole answer (${plainFirst.length} bytes)`);
    const largest = Math.max(...written.map((bytes) => bytes.length));
    assert.ok(largest < 1_000, `each Send refers to the stored messages (${largest} bytes)`);
    for (const i of [0, sends.length - 1]) {
      const back = await serde.loadsTyped("json", written[i]!);
      assert.deepEqual(back, await plain.loadsTyped("json", (await plain.dumpsTyped(sends[i]))[1]));
    }
  } finally {
    db.close();
  }
});

test("writes made at once share one serialization of the messages they carry", async () => {
  const db = new Database(":memory:");
  const inner = new JsonPlusSerializer();
  let answersSerialized = 0;
  const counting = Object.create(inner) as JsonPlusSerializer;
  counting.dumpsTyped = async (value: unknown) => {
    if (value instanceof AIMessage) answersSerialized++;
    return inner.dumpsTyped(value);
  };
  const serde = createLargeValueSerde(db, counting);
  const calls = Array.from({ length: 50 }, (_, i) => ({ id: `call_${i}`, name: "ls", args: { path: `/mnt/${i}` } }));
  const answer = new AIMessage({ id: "a1", content: "", tool_calls: calls });
  const question = new HumanMessage({ id: "h1", content: "list them all" });
  try {
    // LangGraph writes a step's pending writes at once: here, one Send per tool call.
    const written = await Promise.all(
      calls.map((call) => serde.dumpsTyped(new Send("tools", { messages: [question, answer], lg_tool_call: call }))),
    );
    assert.equal(answersSerialized, 1);
    const back = (await serde.loadsTyped("json", written[49]![1])) as { args: { messages: AIMessage[] } };
    assert.equal(back.args.messages[1]!.tool_calls?.length, 50);
  } finally {
    db.close();
  }
});

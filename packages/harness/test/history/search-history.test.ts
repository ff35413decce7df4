/**
 * search_history: the thread's compacted messages found again by their words, with turn and role; bad
 * queries and threads with nothing archived get one clear line; once a thread is compacted the model
 * is told the tool exists.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import path from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import Database from "better-sqlite3";
import { createHarness } from "../../src/agent/harness.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createHistoryArchive } from "../../src/history/history-archive.js";
import { HISTORY_SEARCH_HINT } from "../../src/middleware/durable-context/index.js";
import { createTempHome, ScriptedChatModel } from "../../src/testing/index.js";
import { createHistoryReadTool } from "../../src/tools/history-read.js";
import { createSearchHistoryTool } from "../../src/tools/search-history.js";
import { FIVE_TURNS } from "./five-turns.js";

const info = { compactedAt: "2026-01-01T00:00:00.000Z", summary: "s" };
const call = (
  tool: ReturnType<typeof createSearchHistoryTool>,
  args: { query: string; limit?: number },
  threadId = "t1",
) => tool.invoke(args, { configurable: { thread_id: threadId } }) as Promise<string>;

test("search_history finds an archived detail with its turn and role, and answers bad input in one line", async () => {
  const home = createTempHome();
  const archive = createHistoryArchive(path.join(home.path, "checkpoints.sqlite"));
  try {
    archive.append(
      "t1",
      [
        new HumanMessage({ id: "h1", content: "Hello, let's plan the launch." }),
        new AIMessage({ id: "a1", content: "Sure." }),
        new HumanMessage({
          id: "h2",
          content: "The staging database password is rotated every Tuesday by Margarethe.",
        }),
        new AIMessage({
          id: "a2",
          content: "",
          tool_calls: [{ id: "c1", name: "bash", args: { command: "echo deploy-zebra-42" } }],
        }),
        new ToolMessage({ id: "r1", content: "deploy-zebra-42", tool_call_id: "c1", name: "bash" }),
      ],
      info,
    );
    archive.append("other", [new HumanMessage({ id: "x1", content: "Margarethe is on another thread" })], info);
    const tool = createSearchHistoryTool(archive);

    const found = await call(tool, { query: "who rotates the staging password?" });
    assert.match(
      found,
      /^\[1\] message \d+, turn 2, user:\nThe staging database password is rotated every Tuesday by Margarethe\./,
    );
    assert.doesNotMatch(found, /another thread/, "only this thread's archive");
    assert.match(await call(tool, { query: "zebra" }), /turn 2, (assistant|tool):[\s\S]*deploy-zebra-42/);
    assert.match(await call(tool, { query: "unrelatedword" }), /^No archived message matches "unrelatedword"/);
    assert.match(await call(tool, { query: "   " }), /^Error: search_history needs a query/);
    assert.match(
      await call(tool, { query: "x".repeat(5000) }),
      /^Error: the query is 5000 characters; search_history takes at most 500/,
    );
    assert.match(await call(tool, { query: "password" }, "fresh"), /^No earlier messages are archived for this thread/);
    const many = await call(tool, { query: "the a let's plan launch sure staging deploy zebra margarethe" });
    assert.ok(many.split(/^\[\d\] /m).length - 1 <= 5, "at most five passages");
  } finally {
    archive.close();
    home.cleanup();
  }
});

test("search_history also finds a detail still in the conversation, ranked with the archive by the words it shares", async () => {
  const home = createTempHome();
  const archive = createHistoryArchive(path.join(home.path, "checkpoints.sqlite"));
  try {
    archive.append(
      "t1",
      [
        new HumanMessage({ id: "h1", content: "Review the onboarding dashboards and the staging logs." }),
        new AIMessage({ id: "a1", content: "The staging deadline is 3 May." }),
      ],
      info,
    );
    const live = [
      new HumanMessage({ id: "h2", content: "Please remember: the onboarding deadline is 12 May." }),
      new AIMessage({ id: "a2", content: "Noted." }),
      new HumanMessage({
        id: "ctx",
        content: "onboarding deadline (harness context)",
        additional_kwargs: { hide_from_ui: true },
      }),
      new HumanMessage({ id: "h3", content: "What is the onboarding deadline?" }),
    ];
    const tool = createSearchHistoryTool(archive);
    const search = (query: string, threadId = "t1") =>
      tool.invoke({ query }, {
        configurable: { thread_id: threadId },
        state: { messages: live },
      } as never) as Promise<string>;

    const found = await search("What is the onboarding deadline?");
    assert.match(found, /^\[1\] in the conversation, user:\nPlease remember: the onboarding deadline is 12 May\.\n/);
    assert.match(found, /\[2\] message \d+, turn \d+, (user|assistant):/, "archived passages follow");
    assert.doesNotMatch(
      found,
      /harness context|What is the onboarding deadline/,
      "no hidden message, not the question itself",
    );
    assert.match(await search("onboarding deadline", "fresh"), /^\[1\] in the conversation, user:\nPlease remember/);
    assert.match(await search("zebra", "fresh"), /^No earlier messages are archived for this thread/);
  } finally {
    archive.close();
    home.cleanup();
  }
});

test("an archive written before the index existed is indexed when it is opened", () => {
  const home = createTempHome();
  const file = path.join(home.path, "checkpoints.sqlite");
  try {
    const archive = createHistoryArchive(file);
    archive.append("t1", [new HumanMessage({ id: "h1", content: "The codename is Blue Heron." })], info);
    archive.close();
    const db = new Database(file);
    db.exec("DROP TABLE history_fts; DROP TABLE history_search;");
    db.close();
    const reopened = createHistoryArchive(file);
    assert.deepEqual(
      reopened.search("t1", "codename", 5).map((hit) => [hit.turn, hit.role, hit.passage]),
      [[1, "user", "The codename is Blue Heron."]],
    );
    reopened.close();
  } finally {
    home.cleanup();
  }
});

test("once a thread is compacted the model is told search_history exists, and the tool finds compacted words", async () => {
  const home = createTempHome();
  const config = parseConfigText(
    "sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nsummarization: {enabled: true, trigger: {type: messages, value: 6}, keep: {type: messages, value: 2}}\n",
    { source: null, env: {} },
  );
  const chatModel = new ScriptedChatModel(
    [
      (messages) => ({
        content: messages.some((m) => String(m.content).includes("<new_messages>")) ? "Summary: chatted." : "ok",
      }),
    ],
    { loop: true },
  );
  const harness = await createHarness(config, { home: home.path, env: {}, chatModel, onWarning: () => {} });
  try {
    const agent = harness.agent();
    const thread = { configurable: { thread_id: "t1" } };
    for (const text of FIVE_TURNS) {
      await agent.invoke({ messages: [{ role: "user", content: text }] }, thread);
    }
    const lead = chatModel.calls.filter((c) => c.toolNames.includes("search_history"));
    assert.ok(lead.length > 0, "search_history is bound to the lead model");
    assert.ok(
      !JSON.stringify(lead[0]!.messages.map((m) => m.content)).includes("search_history with"),
      "no hint before compaction",
    );
    const last = lead
      .at(-1)!
      .messages.map((m) => String(m.content))
      .join("\n");
    assert.ok(last.includes(HISTORY_SEARCH_HINT), "the hint follows the summary once compacted");
    assert.ok(agent.deerflow.toolNames.includes("search_history"));
    assert.ok(agent.deerflow.toolNames.includes("history_read"), "history_read is bound beside it");
    assert.match(harness.setup.archive!.search("t1", "locker code", 5)[0]!.passage, /8812/);
  } finally {
    await harness.close();
    home.cleanup();
  }
});

test("history_read reads the compacted messages around a number search_history gave, in full", async () => {
  const home = createTempHome();
  const archive = createHistoryArchive(path.join(home.path, "checkpoints.sqlite"));
  try {
    const long = `The full deploy log: ${"step ok; ".repeat(150)} final: deployed to eu-west-3.`;
    archive.append(
      "t1",
      [
        new HumanMessage({ id: "h1", content: "Deploy the service." }),
        new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "bash", args: { command: "deploy" } }] }),
        new ToolMessage({ id: "r1", content: long, tool_call_id: "c1", name: "bash" }),
        new HumanMessage({ id: "h2", content: "Thanks." }),
      ],
      info,
    );
    const search = createSearchHistoryTool(archive);
    const read = createHistoryReadTool(archive);
    const thread = { configurable: { thread_id: "t1" } };
    const found = await call(search, { query: "deploy log" });
    const seq = Number(/message (\d+)/.exec(found)![1]);
    const text = (await read.invoke({ from: seq, to: seq + 1 }, thread)) as string;
    assert.match(
      text,
      new RegExp(`^message ${seq}, turn 1, tool:\\nThe full deploy log:[\\s\\S]*deployed to eu-west-3\\.`),
    );
    assert.match(text, /message \d+, turn 2, user:\nThanks\./);
    assert.match((await read.invoke({ from: 1 }, thread)) as string, /^message 1, turn 1, user:\nDeploy the service\./);
    assert.match(
      (await read.invoke({ from: 90 }, thread)) as string,
      /^No archived message is numbered 90 to 94\. Use the message numbers search_history gives/,
    );
    assert.match(
      (await read.invoke({ from: 5, to: 2 }, thread)) as string,
      /^Error: "to" \(2\) is before "from" \(5\)/,
    );
    assert.match(
      (await read.invoke({ from: 1, to: 40 }, thread)) as string,
      /^Error: 40 messages asked for; history_read reads at most 20/,
    );
    assert.match(
      (await read.invoke({ from: 1 }, { configurable: { thread_id: "fresh" } })) as string,
      /^No earlier messages are archived/,
    );
  } finally {
    archive.close();
    home.cleanup();
  }
});

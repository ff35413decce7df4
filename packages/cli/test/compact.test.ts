/** `/compact` in `deerflow chat`, run as a user would against the fake OpenAI-compatible server. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeOpenAIServer } from "@deerflow/harness/testing";
import { fakeModelProjects, summaryOrAnswer } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

const project = fakeModelProjects("df-compact-").withModel;

test("/compact in chat summarizes the older turns now, and the next turn carries the summary", async () => {
  const server = await startFakeOpenAIServer({ script: summaryOrAnswer });
  try {
    const cwd = project(
      server.url,
      "memory: {enabled: false}\ntitle: {enabled: false}\nsummarization: {keep: {type: messages, value: 2}}\n",
    );
    const chat = await deerflow(cwd, ["chat"], { input: "/compact\none\ntwo\nthree\n/compact\nfour\n/exit\n" });
    assert.equal(chat.code, 0, chat.stderr);
    assert.match(chat.stderr, /nothing to compact: the thread has no messages yet/);
    assert.match(chat.stderr, /compacted: 4 older message\(s\) summarized, 2 kept/);
    const summaries = server.requests.filter((body) => JSON.stringify(body.messages).includes("<new_messages>"));
    assert.equal(summaries.length, 1, "one summary, made by /compact (no trigger was met)");
    const last = JSON.stringify(server.requests.at(-1)!.messages);
    assert.match(last, /four/);
    assert.match(last, /Summary \d+\./, "the next turn's request carries the summary");
    assert.doesNotMatch(last, /"one"/, "and no longer the compacted question");
  } finally {
    await server.close();
  }
});

/** `/goal` in `deerflow chat`: sets, shows and clears the thread's goal, which the model then sees. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeOpenAIServer } from "@deerflow/harness/testing";
import { fakeModelProjects } from "./fake-projects.js";
import { deerflow } from "./run-cli.js";

const projects = fakeModelProjects("df-goal-");

test("/goal sets the goal the model sees on each turn, /goal shows it, /goal clear removes it", async () => {
  const server = await startFakeOpenAIServer({ strict: true, script: [{ content: "On it." }, { content: "Done." }] });
  try {
    const cwd = projects.withModel(server.url, "memory: {enabled: false}\ntitle: {enabled: false}\n");
    const chat = await deerflow(cwd, ["chat"], {
      input: "/goal\n/goal Ship  the beta\n/goal\nstart\n/goal clear\n/goal\nnext\n/goal   \n/exit\n",
    });
    assert.equal(chat.code, 0, chat.stderr);
    const lines = chat.stdout.split(/you> /).map((line) => line.trim());
    assert.deepEqual(lines.slice(1, 4), [
      "no goal set (/goal <text> sets one)",
      "goal set: Ship the beta",
      "goal: Ship the beta",
    ]);
    assert.equal(lines[5], "goal cleared");
    assert.equal(lines[6], "no goal set (/goal <text> sets one)");
    assert.equal(server.requests.length, 2, "no /goal line reached the model as a message");
    assert.match(JSON.stringify(server.requests[0]!.messages), /<thread_goal>[^"]*Ship the beta/);
    assert.doesNotMatch(JSON.stringify(server.requests[1]!.messages), /thread_goal/);
    assert.doesNotMatch(JSON.stringify(server.requests[0]!.messages), /"content":"\/goal/);
  } finally {
    await server.close();
  }
});

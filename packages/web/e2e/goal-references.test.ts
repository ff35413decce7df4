/**
 * The goal and conversation references end to end: `/goal` typed in a new chat makes the thread and
 * shows the goal banner, the model's next request carries the goal, and a conversation picked in the
 * composer goes with the next message, for the model to read with read_conversation.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type ChatCompletionRequest,
  type FakeOpenAIServer,
  fakeModelConfig,
  startFakeOpenAIServer,
} from "@deerflow/harness/testing";
import { type Served, sendTask, serve, skipReason, withPage } from "./support.js";

const skip = skipReason();
let fake: FakeOpenAIServer;
let server: Served;
const text = (body: ChatCompletionRequest) => JSON.stringify(body.messages);

before(async () => {
  if (skip) return;
  fake = await startFakeOpenAIServer({
    script: async (body) => {
      const answered = body.messages.some((m) => m.role === "tool");
      const ref = /- ([\w-]+): Plan the launch/.exec(text(body))?.[1];
      if (ref && !answered) return { tool_calls: [{ name: "read_conversation", arguments: { thread_id: ref } }] };
      return { content: answered ? "I read it." : "Working on it." };
    },
  });
  server = await serve({ configYaml: fakeModelConfig(fake.url) });
});
after(async () => {
  await server?.stop();
  await fake?.close();
});

test("/goal shows the goal and the model sees it; a referenced conversation is read", { skip }, async () => {
  await withPage("goal-references", async (page) => {
    await page.goto(server.url);
    await sendTask(page, "/goal Ship the beta by Friday");
    await page.getByTestId("goal").getByText("Ship the beta by Friday").waitFor();
    await page.waitForURL(/\/threads\//);
    assert.equal(await page.getByLabel("Message").inputValue(), "");

    await sendTask(page, "Plan the launch");
    await page.getByText("Working on it.").waitFor();
    assert.match(text(fake.requests.at(-1)!), /<thread_goal>[^"]*Ship the beta by Friday/);
    const first = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

    await page.getByRole("button", { name: "New chat" }).first().click();
    await page.getByRole("button", { name: "Reference a conversation" }).click();
    await page
      .getByRole("list", { name: "Conversations to reference" })
      .getByRole("button", { name: "Plan the launch" })
      .click();
    await page.getByTestId("reference-chip").getByText("Plan the launch").waitFor();
    await sendTask(page, "What did we plan?");
    await page.getByText("I read it.").waitFor();
    const sent = fake.requests.filter((body) => text(body).includes("What did we plan?"));
    assert.match(text(sent[0]!), new RegExp(`<referenced_conversations>[^"]*- ${first}: Plan the launch`));
    assert.match(text(sent.at(-1)!), /<conversation thread_id=[\s\S]*user: Plan the launch/);
    assert.equal(await page.getByTestId("goal").count(), 0, "the new chat has no goal");
  });
});

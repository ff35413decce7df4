/**
 * Regenerate, edit and the version picker end to end, with a scripted model that numbers its answers:
 * Regenerate replaces the answer with a new one, the picker steps back to the first and forward again,
 * editing the question sends the new text, and after a reload the thread (marked `has_versions`) still
 * offers its versions.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeOpenAIServer, fakeModelConfig, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { browserForFile, type Served, sendTask, serve, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
let fake: FakeOpenAIServer;
let server: Served;
const asked = new Map<string, number>();

before(async () => {
  if (skip) return;
  fake = await startFakeOpenAIServer({
    script: async (body) => {
      const question = JSON.stringify(body.messages);
      const topic = question.includes("Name a fruit") ? "Fruit" : "Colour";
      const count = (asked.get(topic) ?? 0) + 1;
      asked.set(topic, count);
      return { content: `${topic} answer ${count}.` };
    },
  });
  server = await serve({ configYaml: fakeModelConfig(fake.url) });
});
after(async () => {
  await server?.stop();
  await fake?.close();
});

test("regenerate, switch versions with the picker, edit the question", { skip }, async () => {
  await withPage("versions", async (page) => {
    await page.goto(server.url);
    await sendTask(page, "Name a colour");
    await page.getByText("Colour answer 1.").waitFor();
    await page.waitForURL(/\/threads\//);
    const threadId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    // A thread without versions loads no checkpoint history on open.
    const historyReads: string[] = [];
    page.on("request", (request) => {
      if (/\/threads\/[^/]+\/history$/.test(new URL(request.url()).pathname)) historyReads.push(request.url());
    });
    await page.reload();
    await page.getByText("Colour answer 1.").waitFor();
    await page.getByRole("button", { name: "Regenerate" }).waitFor();
    assert.deepEqual(historyReads, []);

    await page.getByRole("button", { name: "Regenerate" }).click();
    await page.getByText("Colour answer 2.").waitFor();
    await page.getByText("Colour answer 1.").waitFor({ state: "detached" });
    const picker = page.getByTestId("branch-picker");
    await picker.getByText("2/2").waitFor();
    assert.equal(await page.getByTestId("msg-human").count(), 1);

    await picker.getByRole("button", { name: "Previous version" }).click();
    await page.getByText("Colour answer 1.").waitFor();
    await page.getByText("Colour answer 2.").waitFor({ state: "detached" });
    await picker.getByText("1/2").waitFor();
    // Regenerate and Edit act on the newest version only: hidden while an earlier one is in view.
    assert.equal(await page.getByRole("button", { name: "Regenerate" }).count(), 0);
    assert.equal(await page.getByRole("button", { name: "Edit" }).count(), 0);
    await picker.getByRole("button", { name: "Next version" }).click();
    await page.getByText("Colour answer 2.").waitFor();
    await page.getByRole("button", { name: "Regenerate" }).waitFor();

    // Edit: Cancel puts the question back untouched, Save sends the new text.
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Edit your message").fill("Name a fruit");
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.getByTestId("msg-human").getByText("Name a colour").waitFor();
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Edit your message").fill("Name a fruit");
    await page.getByRole("button", { name: "Save and send" }).click();
    await page.getByText("Fruit answer 1.").waitFor();
    await page.getByTestId("msg-human").getByText("Name a fruit").waitFor();
    assert.equal(await page.getByTestId("msg-human").count(), 1);
    await page.getByText("Name a colour").waitFor({ state: "detached" });

    const thread = (await (await fetch(`${server.url}/threads/${threadId}`)).json()) as {
      metadata: Record<string, unknown>;
    };
    assert.equal(thread.metadata.has_versions, true);

    // After a reload the marked thread reads its history: the versions are still there.
    await page.reload();
    await page.getByText("Fruit answer 1.").waitFor();
    await page.getByTestId("branch-picker").first().waitFor();
    assert.ok(historyReads.length > 0);
  });
});

/**
 * The user in the loop in the browser, against `deerflow serve` with the fake OpenAI model: a tool call
 * under `tool_policies: approval` shows an approval card whose Approve and Deny resume the run, and a
 * clarification form is filled in and sent.
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

const lastUser = (body: ChatCompletionRequest) =>
  JSON.stringify(body.messages.filter((message) => message.role === "user").at(-1)?.content ?? "");

before(async () => {
  if (skip) return;
  fake = await startFakeOpenAIServer({
    script: (body) => {
      const last = body.messages.at(-1)!;
      if (last.role === "tool")
        return { content: JSON.stringify(last.content).includes("declined") ? "Left it alone." : "Listed it." };
      if (lastUser(body).includes("Environment:")) return { content: `Got ${lastUser(body)}` };
      if (lastUser(body).includes("Deploy"))
        return {
          tool_calls: [
            {
              name: "ask_clarification",
              arguments: {
                question: "Deployment details?",
                clarification_type: "missing_info",
                fields: [
                  { name: "env", label: "Environment", type: "select", options: ["staging", "prod"], required: true },
                  { name: "notes", label: "Notes" },
                ],
              },
            },
          ],
        };
      return { tool_calls: [{ name: "ls", arguments: { description: "look", path: "/mnt/user-data/workspace" } }] };
    },
  });
  server = await serve({ configYaml: fakeModelConfig(fake.url, "tool_policies: {ls: approval}") });
});
after(async () => {
  await server?.stop();
  await fake?.close();
});

test("an approval card: Approve runs the call, Deny (with a reason) refuses it", { skip }, async () => {
  await withPage("hitl-approval", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "List the workspace");
    const card = page.getByTestId("approval");
    await card.getByText("/mnt/user-data/workspace").waitFor();
    await card.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Listed it.").waitFor();
    await card.waitFor({ state: "detached" });

    await sendTask(page, "List it again");
    await page.getByTestId("approval").waitFor();
    await page.getByLabel("Reason for denying ls (optional)").fill("not now");
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByText("Left it alone.").waitFor();
    const refusal = fake.requests.at(-1)!.messages.at(-1)!;
    assert.match(JSON.stringify(refusal.content), /declined[\s\S]*Reason: not now/);
  });
});

test("a clarification form is filled in and sent as one answer", { skip }, async () => {
  await withPage("hitl-form", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Deploy it");
    const form = page.getByTestId("clarification-form");
    await form.waitFor();
    await form.getByLabel("Environment *").selectOption("prod");
    await form.getByLabel("Notes").fill("quick");
    await form.getByRole("button", { name: "Send answers" }).click();
    await page.getByText(/Got .*Environment: prod/).waitFor();
  });
});

/**
 * The web app end to end against `deerflow serve` configured with an OpenAI-compatible model (the fake
 * OpenAI server from @deerflow/harness/testing, driven through the real ChatOpenAI client): the answer
 * streams in, a reload mid-run rejoins the running stream, Stop cancels, a failed run shows its error
 * with a working Retry, a clarification is answered by clicking an option, a delegated subagent
 * shows as a live card, and a batch_task call shows a progress bar that fills as its items finish.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type ChatCompletionRequest,
  type FakeOpenAIServer,
  fakeModelConfig,
  startFakeOpenAIServer,
} from "@deerflow/harness/testing";
import type { Page } from "playwright-core";
import { browserForFile, type Served, sendTask, serve, skipReason, withPage } from "./support.js";

function gate() {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

function userTexts(body: ChatCompletionRequest): string[] {
  return body.messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

const skip = skipReason();
browserForFile();
const slow = gate();
const stopGate = gate();
const batchGate = gate();
let batchItems = 0;
let failures = 0;
let fake: FakeOpenAIServer;
let server: Served;

before(async () => {
  if (skip) return;
  fake = await startFakeOpenAIServer({
    script: async (body) => {
      const texts = userTexts(body);
      const last = texts[texts.length - 1] ?? "";
      const lastMessage = body.messages[body.messages.length - 1]!;
      // batch_task's items: one model call each, without tools; all but the first 10 wait for the test.
      if (!body.tools?.length && last.startsWith("Upper: ")) {
        batchItems += 1;
        if (batchItems > 10) await batchGate.wait;
        return { content: last.slice("Upper: ".length).toUpperCase() };
      }
      if (last.includes("Batch the words")) {
        if (lastMessage.role === "tool") return { content: "Batch finished." };
        const items = Array.from({ length: 40 }, (_, index) => `word${index}`);
        return {
          tool_calls: [
            {
              name: "batch_task",
              arguments: { description: "Shout words", prompt_template: "Upper: {item}", items, concurrency: 2 },
            },
          ],
        };
      }
      if (
        body.messages.some((m) => m.role === "system" && String(m.content).includes("subagent")) &&
        last.includes("Research deer quickly")
      ) {
        return { content: "Deer are ruminants with four-chambered stomachs." };
      }
      if (last.includes("Make files")) {
        const toolNames = body.messages
          .filter((m) => m.role === "tool")
          .map((m) => String((m as { name?: string }).name ?? ""));
        const answered = body.messages.filter((m) => m.role === "tool").length;
        if (answered === 0) {
          return {
            tool_calls: [
              {
                name: "write_file",
                arguments: {
                  description: "page",
                  path: "/mnt/user-data/outputs/page.html",
                  content:
                    '<h1>Hello page</h1><p id="s">static</p><script>document.getElementById("s").textContent = "ran"</script>',
                },
              },
              {
                name: "write_file",
                arguments: {
                  description: "table",
                  path: "/mnt/user-data/outputs/data.csv",
                  content: 'name,note\n"Doe, J",first\nRoe,second\n',
                },
              },
            ],
          };
        }
        if (answered === 2 && !toolNames.includes("present_files")) {
          return {
            tool_calls: [
              {
                name: "present_files",
                arguments: { filepaths: ["/mnt/user-data/outputs/page.html", "/mnt/user-data/outputs/data.csv"] },
              },
            ],
          };
        }
        return { content: "Files ready." };
      }
      if (lastMessage.role === "tool") {
        if (last.includes("Delegate")) return { content: "The subagent reported back." };
        return { content: "Tool finished." };
      }
      if (last.includes("Take your time")) {
        await slow.wait;
        return { content: "Here is the answer after the wait, streamed in pieces." };
      }
      if (last.includes("Stop me")) {
        await stopGate.wait;
        return { content: "This should never be shown." };
      }
      if (last.includes("Fail once")) {
        failures++;
        if (failures === 1) return { status: 400, error: { message: "The fake provider refused this request." } };
        return { content: "Recovered after retry." };
      }
      if (last.includes("Ask me"))
        return {
          tool_calls: [
            {
              name: "ask_clarification",
              arguments: {
                question: "Which format?",
                clarification_type: "approach_choice",
                options: ["Markdown", "HTML"],
              },
            },
          ],
        };
      if (last === "HTML" || last.endsWith("HTML")) return { content: "You chose HTML." };
      if (last.includes("Delegate")) {
        return {
          tool_calls: [
            {
              name: "task",
              arguments: {
                description: "Research deer",
                prompt: "Research deer quickly",
                subagent_type: "general-purpose",
              },
            },
          ],
        };
      }
      return { content: `Echo: ${last.slice(0, 80)}` };
    },
  });
  server = await serve({
    configYaml: fakeModelConfig(fake.url),
  });
});
after(async () => {
  slow.open();
  batchGate.open();
  stopGate.open();
  await server?.stop();
  await fake?.close();
});

async function until(predicate: () => boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function setSwitch(page: Page, label: string, on: boolean) {
  await page.getByRole("button", { name: "Settings" }).click();
  const box = page.getByRole("checkbox", { name: label });
  if ((await box.isChecked()) !== on) await box.click();
  await page.getByRole("button", { name: "Settings" }).click();
}

test("reload mid-run rejoins the running stream and the answer arrives without sending again", { skip }, async () => {
  await withPage("live-reload", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Take your time");
    await page.waitForURL(/\/threads\//);
    await page.getByTestId("working").waitFor();
    const calls = () =>
      fake.requests.filter((body) => userTexts(body).some((t) => t.includes("Take your time"))).length;
    await until(() => calls() === 1, "the model call");
    await page.reload();
    await page.getByTestId("msg-human").filter({ hasText: "Take your time" }).waitFor();
    await page.getByTestId("working").waitFor();
    slow.open();
    await page.getByText("Here is the answer after the wait, streamed in pieces.").waitFor();
    await page.getByTestId("working").waitFor({ state: "detached" });
    assert.equal(calls(), 1, "the task was not sent again");
  });
});

test("Stop cancels the run and the thread stays usable", { skip }, async () => {
  await withPage("live-stop", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Stop me");
    await page.waitForURL(/\/threads\//);
    await until(
      () => fake.requests.some((body) => userTexts(body).some((t) => t.includes("Stop me"))),
      "the model call",
    );
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByTestId("working").waitFor({ state: "detached" });
    const threadId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    // The fake model holds its answer until the gate opens; the run must still end interrupted and its
    // answer must never show.
    stopGate.open();
    let status = "";
    for (let i = 0; i < 100 && status !== "interrupted"; i++) {
      const runs = (await (await fetch(`${server.url}/api/threads/${threadId}/runs`)).json()) as { status: string }[];
      status = runs[0]?.status ?? "";
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, "interrupted");
    await sendTask(page, "Still there?");
    await page.getByText("Echo: Still there?").waitFor();
    assert.equal(await page.getByText("This should never be shown.").count(), 0);
  });
});

test("a failed run shows its error inline and Retry runs it again", { skip }, async () => {
  await withPage("live-retry", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Fail once");
    const error = page.getByTestId("run-error");
    await error.waitFor();
    assert.match((await error.textContent()) ?? "", /refused|400|fake/i);
    await error.getByRole("button", { name: "Retry" }).click();
    await page.getByText("Recovered after retry.").waitFor();
    await error.waitFor({ state: "detached" });
    assert.equal(
      await page.getByTestId("msg-human").filter({ hasText: "Fail once" }).count(),
      1,
      "Retry did not send the message again",
    );
    // The model reported token usage: the context meter shows it.
    await page
      .getByTestId("context-meter")
      .getByText(/\d tokens/)
      .waitFor();
  });
});

test("a clarification is answered by clicking an option", { skip }, async () => {
  await withPage("live-clarification", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Ask me something");
    const question = page.getByTestId("clarification");
    await question.getByText("Which format?").waitFor();
    await question.getByRole("button", { name: "HTML" }).click();
    await page.getByText("You chose HTML.").waitFor();
  });
});

test("a delegated subagent shows as a card with its result", { skip }, async () => {
  await withPage("live-subagent", async (page) => {
    await page.goto(`${server.url}/`);
    await setSwitch(page, "Subagents", true);
    await sendTask(page, "Delegate the research");
    const card = page.getByTestId("subagent-card");
    await card.waitFor();
    await card.getByText("Research deer").waitFor();
    await page.locator("[data-testid=subagent-card][data-status=completed]").waitFor();
    await page.getByText("The subagent reported back.").waitFor();
    await card.locator("summary").click();
    await card.locator(".subagent-result", { hasText: "Deer are ruminants with four-chambered stomachs." }).waitFor();
    // Opened again later (no live events), the card comes from the thread's saved delegations.
    await page.reload();
    const saved = page.locator("[data-testid=subagent-card][data-status=completed]");
    await saved.getByText("Research deer").waitFor();
  });
});

test("a batch_task call shows a progress bar on its tool card that fills as items finish", { skip }, async () => {
  await withPage("live-batch", async (page) => {
    await page.goto(`${server.url}/`);
    await setSwitch(page, "Subagents", true);
    await sendTask(page, "Batch the words");
    const bar = page.getByRole("progressbar", { name: "Batch progress" });
    await bar.waitFor();
    await until(() => batchItems > 10, "items held by the fake model");
    const held = Number(await bar.getAttribute("aria-valuenow"));
    assert.ok(held < 100, `part-way while items are held (${held}%)`);
    batchGate.open();
    await page.getByTestId("batch-progress").getByText("40 of 40 done").waitFor();
    assert.equal(await bar.getAttribute("aria-valuenow"), "100");
    await page.getByText("Batch finished.").waitFor();
  });
});

test("HTML artifacts preview in a sandboxed frame without running scripts; CSV shows as a table", {
  skip,
}, async () => {
  await withPage("live-artifacts", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Make files");
    await page.getByText("Files ready.").waitFor();
    const panel = page.getByTestId("artifacts");
    await panel.getByRole("button", { name: "page.html", exact: true }).click();
    const frame = page.frameLocator("iframe.html-preview");
    await frame.locator("h1", { hasText: "Hello page" }).waitFor();
    assert.equal(await frame.locator("#s").textContent(), "static", "the page's script did not run");
    assert.equal(await page.locator("iframe.html-preview").getAttribute("sandbox"), "");
    await panel.getByRole("button", { name: "data.csv", exact: true }).click();
    const table = page.getByTestId("artifact-preview").locator("table");
    await table.locator("th", { hasText: "name" }).waitFor();
    await table.locator("td", { hasText: "Doe, J" }).waitFor();
    assert.equal(await table.locator("tbody tr").count(), 2);
  });
});

/**
 * The model picker and uploads end to end against `deerflow serve` configured with two OpenAI-compatible
 * models on the fake OpenAI server (through the real ChatOpenAI client): the model chosen in settings is
 * the one the server calls, and a file attached in the composer is stored by the server, named in the
 * model's request (the <current_uploads> block) and shown as a chip on the message.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ChatCompletionRequest, type FakeOpenAIServer, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { browserForFile, type Served, sendTask, serve, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
let fake: FakeOpenAIServer;
let server: Served;

function text(message: ChatCompletionRequest["messages"][number]): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}
function lastUser(body: ChatCompletionRequest): string {
  return text(body.messages.filter((m) => m.role === "user").at(-1)!);
}

before(async () => {
  if (skip) return;
  fake = await startFakeOpenAIServer({ script: async (body) => ({ content: `Answered by ${body.model}.` }) });
  server = await serve({
    configYaml: [
      "models:",
      `  - {name: swift, display_name: Swift model, use: openai, model: swift-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
      `  - {name: deep, display_name: Deep model, use: openai, model: deep-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
      "sandbox: {use: local}",
      "memory: {enabled: false}",
      "title: {enabled: false}",
      "",
    ].join("\n"),
  });
});
after(async () => {
  await server?.stop();
  await fake?.close();
});

test("model picker: the models from /api/models are offered and the chosen one answers", { skip }, async () => {
  await withPage("model-picker", async (page) => {
    await page.goto(server.url);
    await sendTask(page, "Who answers first?");
    await page.getByText("Answered by swift-model.").waitFor();

    await page.getByRole("button", { name: "Settings" }).click();
    const picker = page.getByRole("combobox", { name: "Model" });
    assert.deepEqual(await picker.locator("option").allTextContents(), ["Server default", "Swift model", "Deep model"]);
    await picker.selectOption("deep");
    await page.getByRole("button", { name: "Settings" }).click();
    await sendTask(page, "Who answers now?");
    await page.getByText("Answered by deep-model.").waitFor();
    const asked = fake.requests.filter((body) => lastUser(body).includes("Who answers now?"));
    assert.ok(
      asked.length > 0 && asked.every((body) => body.model === "deep-model"),
      `requests for the second task used ${asked.map((b) => b.model).join(", ")}`,
    );

    // The choice is remembered across a reload.
    await page.reload();
    await page.getByRole("button", { name: "Settings" }).click();
    assert.equal(await page.getByRole("combobox", { name: "Model" }).inputValue(), "deep");
  });
});

test("an attached file is uploaded, named to the model in <current_uploads>, and shown as a chip on the message", {
  skip,
}, async () => {
  await withPage("upload-used", async (page) => {
    await page.goto(server.url);
    await page.getByText("What should DeerFlow do?").waitFor();
    await page.locator("input[type=file]").setInputFiles({
      name: "antlers.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Deer shed antlers every year.\n"),
    });
    await page.getByTestId("file-chip").getByText("antlers.txt").waitFor();
    await sendTask(page, "Summarise the attached notes");
    await page.getByTestId("msg-human").getByText("antlers.txt").waitFor();
    await page.getByText(/Answered by \w+-model\./).waitFor();

    const request = fake.requests.find((body) => lastUser(body).includes("Summarise the attached notes"));
    assert.ok(request, "the model was asked");
    assert.match(lastUser(request), /<current_uploads>[\s\S]*antlers\.txt[\s\S]*<\/current_uploads>/);

    const threadId = /\/threads\/([^/]+)/.exec(page.url())![1]!;
    const listed = (await (await fetch(`${server.url}/api/threads/${threadId}/uploads/list`)).json()) as {
      files?: Array<{ filename: string }>;
    };
    assert.ok(
      listed.files?.some((file) => file.filename === "antlers.txt"),
      `the server stored the file: ${JSON.stringify(listed)}`,
    );
  });
});

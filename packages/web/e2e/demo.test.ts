/**
 * The web app end to end with the built-in demo model, as a new user tries it: type a task, watch the
 * plan, the tool cards and the answer appear, open the note's preview and download it; then the thread
 * list (switching, a new chat, delete with confirmation) and an unknown thread id.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { browserForFile, repoRoot, type Served, sendTask, serve, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
let server: Served;
before(async () => {
  if (!skip) server = await serve();
});
after(async () => {
  await server?.stop();
});

test("a task streams in: plan, tool cards, answer, artifact preview and download", { skip }, async () => {
  await withPage("demo-task", async (page) => {
    await page.goto(`${server.url}/`);
    await page.getByText("What should DeerFlow do?").waitFor();
    await sendTask(page, "Write a short note about deer");
    // The user's message shows at once; the URL then names the new thread.
    await page.getByTestId("msg-human").filter({ hasText: "Write a short note about deer" }).waitFor();
    await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
    // Tool cards for each step the demo model takes, each finished.
    for (const tool of ["write_todos", "write_file", "read_file", "present_files"]) {
      await page.locator(`[data-testid=tool-card][data-tool=${tool}][data-state=done]`).first().waitFor();
    }
    await page.getByText("I wrote a note about your task").waitFor();
    // The plan, all steps completed.
    const plan = page.getByTestId("plan");
    await plan.getByText("3/3").waitFor();
    assert.equal(await plan.locator("li[data-status=completed]").count(), 3);
    // The artifact panel opens with the note rendered as Markdown.
    const preview = page.getByTestId("artifact-preview");
    await preview.locator("h1", { hasText: "Note: Write a short note about deer" }).waitFor();
    if (process.env.DEERFLOW_UPDATE_SCREENSHOT === "1")
      await page.screenshot({ path: path.join(repoRoot, "docs", "screenshot.png") });
    // A tool card expands to its arguments and result.
    await page.locator("[data-testid=tool-card][data-tool=read_file] button").first().click();
    await page.locator("[data-testid=tool-card][data-tool=read_file]").getByText("Result").waitFor();
    // Download gives the file itself.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: /^Download note-write-a-short-note-about-deer\.md$/ }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "note-write-a-short-note-about-deer.md");
    const saved = await download.path();
    assert.match(readFileSync(saved, "utf8"), /^# Note: Write a short note about deer/);
  });
});

test("threads: the sidebar lists them, switching loads each, delete asks first; an unknown id has a way back", {
  skip,
}, async () => {
  await withPage("demo-threads", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Plan a picnic");
    await page.getByText("I wrote a note about your task").waitFor();
    const firstUrl = page.url();
    await page.getByRole("button", { name: "New chat", exact: true }).click();
    await page.waitForURL(`${server.url}/`);
    await sendTask(page, "Count the stars");
    await page.getByText("Task: Count the stars").waitFor();
    const items = page.getByTestId("thread-item");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=thread-item]").length >= 2);
    // Most recent first.
    assert.match((await items.first().textContent()) ?? "", /Count the stars|stars/i);
    // Switch to the picnic thread: its messages load, the URL names it.
    await items
      .filter({ hasText: /picnic/i })
      .getByRole("link")
      .click();
    await page.waitForURL(firstUrl);
    await page.getByText("Task: Plan a picnic").waitFor();
    assert.equal(await page.getByText("Task: Count the stars").count(), 0);
    // Rename keeps the new title across a reload.
    const picnicItem = items.filter({ hasText: /picnic/i });
    await picnicItem.getByRole("button", { name: /^Rename/ }).click();
    await page.getByLabel("New title").fill("Picnic plans (renamed)");
    await page.getByLabel("New title").press("Enter");
    await items.filter({ hasText: "Picnic plans (renamed)" }).waitFor();
    await page.reload();
    await items.filter({ hasText: "Picnic plans (renamed)" }).waitFor();
    await page.getByTestId("thread-title").getByText("Picnic plans (renamed)").waitFor();
    // Search narrows the list.
    await page.getByLabel("Search chats").fill("stars");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=thread-item]").length === 1);
    await page.getByLabel("Search chats").fill("");
    // Delete asks for confirmation, then the thread is gone and its page says so.
    const picnicId = await items.filter({ hasText: /picnic/i }).getAttribute("data-thread-id");
    const picnic = page.locator(`[data-thread-id="${picnicId}"]`);
    await picnic.getByRole("button", { name: /^Delete/ }).click();
    await picnic.getByText("Delete this chat?").waitFor();
    await picnic.getByRole("button", { name: "Delete", exact: true }).click();
    await page.waitForURL(`${server.url}/`);
    await page.waitForFunction(
      () =>
        ![...document.querySelectorAll("[data-testid=thread-item]")].some((el) => /picnic/i.test(el.textContent ?? "")),
    );
    await page.goto(firstUrl);
    await page.getByTestId("not-found").getByText("Chat not found").waitFor();
    await page.getByRole("button", { name: "Start a new chat" }).click();
    await page.getByText("What should DeerFlow do?").waitFor();
  });
});

test("server unreachable: a banner retries, the draft is kept, and the app recovers when the server is back", {
  skip,
}, async () => {
  await withPage("demo-offline", async (page) => {
    await page.goto(`${server.url}/`);
    await page.getByText("What should DeerFlow do?").waitFor();
    await page.getByLabel("Message").fill("typed while the server is away");
    const port = Number(new URL(server.url).port);
    const home = server.home;
    await server.stop(true);
    await page.getByText("The server is not reachable").waitFor();
    server = await serve({ port, home });
    await page.getByText("The server is not reachable").waitFor({ state: "detached" });
    assert.equal(await page.getByLabel("Message").inputValue(), "typed while the server is away");
    await page.getByLabel("Message").press("Enter");
    await page.getByText("Task: typed while the server is away").waitFor();
  });
});

test("attached files: sent with the message when the server takes uploads, else the chip says why and the draft stays", {
  skip,
}, async () => {
  await withPage("demo-upload", async (page) => {
    await page.goto(`${server.url}/`);
    await page.getByText("What should DeerFlow do?").waitFor();
    await page.locator("input[type=file]").setInputFiles({
      name: "facts.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Deer shed antlers every year.\n"),
    });
    await page.getByTestId("file-chip").getByText("facts.txt").waitFor();
    await sendTask(page, "Summarise the attached facts");
    const uploads = await fetch(`${server.url}/api/threads/probe-thread/uploads/limits`);
    if (uploads.status === 404) {
      // This server has no upload route: nothing is sent, the chip carries the reason, the text stays.
      await page.getByTestId("file-chip").getByText("does not accept uploads").waitFor();
      assert.equal(await page.getByLabel("Message").inputValue(), "Summarise the attached facts");
      assert.equal(await page.getByTestId("msg-human").count(), 0);
    } else {
      await page.getByTestId("msg-human").getByText("facts.txt").waitFor();
      await page.getByText("I wrote a note about your task").waitFor();
      assert.equal(await page.getByTestId("file-chip").count(), 0);
    }
  });
});

/**
 * Under the last answer, with the built-in demo model: follow-up suggestion chips (a click sends one),
 * thumbs up with a comment (saved on the run, read back after a reload, a second click takes it back)
 * and the Export menu (Markdown and JSON downloads).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { browserForFile, type Served, sendTask, serve, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
let server: Served;
before(async () => {
  if (!skip) server = await serve();
});
after(async () => {
  await server?.stop();
});

const threadOf = (url: string) => /\/threads\/([0-9a-f-]+)$/.exec(url)![1]!;

test("suggestion chips, thumbs up with a comment, and Export", { skip }, async () => {
  await withPage("answer-actions", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Plan a weekend in Kyoto");
    await page.getByText("I wrote a note about your task").waitFor();
    await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
    const threadId = threadOf(page.url());

    // Suggestions: the demo model's follow-ups, each saying it is the demo's.
    const chip = page.getByRole("button", { name: /What would a real model do differently here\?/ });
    await chip.waitFor();
    assert.equal(await page.locator("button.suggestion").count(), 3);

    // Thumbs up, then a comment; the server has both.
    const up = page.getByRole("button", { name: "Good answer" });
    await up.click();
    await page.locator('button[aria-pressed="true"][aria-label="Good answer"]').waitFor();
    await page.getByLabel("Add a comment (optional)").fill("Helpful plan");
    await page.getByRole("button", { name: "Save comment" }).click();
    await page.getByText("Thanks for the feedback").waitFor();
    const runs = (await (await fetch(`${server.url}/api/threads/${threadId}/runs`)).json()) as Array<{
      run_id: string;
    }>;
    const feedbackUrl = `${server.url}/api/threads/${threadId}/runs/${runs[0]!.run_id}/feedback`;
    const saved = (await (await fetch(feedbackUrl)).json()) as Array<{ rating: number; comment: string }>;
    assert.deepEqual(
      saved.map((entry) => [entry.rating, entry.comment]),
      [[1, "Helpful plan"]],
    );
    // After a reload the thumb still shows; a second click takes it back.
    await page.reload();
    await page.getByText("I wrote a note about your task").waitFor();
    await page.locator('button[aria-pressed="true"][aria-label="Good answer"]').waitFor();
    await page.getByRole("button", { name: "Good answer" }).click();
    await page.locator('button[aria-pressed="false"][aria-label="Good answer"]').waitFor();
    assert.deepEqual(await (await fetch(feedbackUrl)).json(), []);

    // Export: Markdown and JSON downloads of the conversation.
    for (const [label, pattern] of [
      ["Markdown (.md)", /## User\n\nPlan a weekend in Kyoto/],
      ["JSON (.json)", /"thread_id": "[0-9a-f-]+"/],
    ] as const) {
      await page.getByRole("button", { name: "Export" }).click();
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("menuitem", { name: label }).click(),
      ]);
      assert.match(download.suggestedFilename(), /\.(md|json)$/);
      assert.match(readFileSync(await download.path(), "utf8"), pattern);
    }

    // A chip sends its question.
    await page.getByRole("button", { name: /What would a real model do differently here\?/ }).click();
    await page
      .getByTestId("msg-human")
      .filter({ hasText: "(demo model) What would a real model do differently here?" })
      .waitFor();
    await page.getByText("Task: (demo model) What would a real model do differently here?").waitFor();
  });
});

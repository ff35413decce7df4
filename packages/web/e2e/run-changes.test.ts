/**
 * The changes panel end to end on the demo model: after a task that writes a note, the panel under the
 * chat lists the note as created (from the server's changes route) and opens it in the artifacts panel.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { sendTask, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip);

test("workspace changes: the note a run wrote is listed as created and opens in the panel", { skip }, async () => {
  await withPage("run-changes", async (page) => {
    await page.goto(`${server.url}/`);
    await sendTask(page, "Write a short note about deer");
    await page.getByText("I wrote a note about your task").waitFor();
    const changes = page.getByTestId("run-changes");
    await changes.getByText("Files changed in the last run (1)").click();
    const file = changes.getByTestId("changed-file");
    await file.getByText("outputs/note-write-a-short-note-about-deer.md").waitFor();
    assert.equal(await file.getAttribute("data-kind"), "created");
    await page.getByRole("button", { name: "Close artifacts" }).click();
    await file.getByRole("button").click();
    await page
      .getByTestId("artifact-preview")
      .locator("h1", { hasText: "Note: Write a short note about deer" })
      .waitFor();
  });
});

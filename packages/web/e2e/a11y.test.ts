/**
 * Accessibility: axe-core (its source injected into the page) finds no serious or critical violations
 * on the chat page (empty, and after the demo model's task with plan, tool cards and answer) nor in each
 * settings tab, in the light and the dark theme.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { seriousViolations } from "./axe.js";
import { sendTask, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip);

async function checkSettings(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  await page.getByRole("button", { name: "Settings" }).click();
  for (const tab of ["General", "Memory", "Skills", "MCP", "Subagents"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.getByRole("tabpanel", { name: tab }).waitFor();
    found.push(...(await seriousViolations(page, `${where} settings/${tab}`)));
  }
  await page.getByRole("tab", { name: "General" }).click();
  await page.getByRole("button", { name: "Settings" }).click();
  return found;
}

test("axe-core: no serious or critical violations on the chat page and in settings, light and dark", {
  skip,
}, async () => {
  await withPage("a11y", async (page) => {
    const found: string[] = [];
    await page.goto(server.url);
    await page.getByText("What should DeerFlow do?").waitFor();
    found.push(...(await seriousViolations(page, "empty chat")));
    found.push(...(await checkSettings(page, "light")));

    await sendTask(page, "Write a short note about deer");
    await page.getByText("I wrote a note about your task").waitFor();
    found.push(...(await seriousViolations(page, "chat after a task")));

    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("combobox", { name: "Theme" }).selectOption("dark");
    await page.getByRole("button", { name: "Settings" }).click();
    found.push(...(await seriousViolations(page, "dark chat")));
    found.push(...(await checkSettings(page, "dark")));
    assert.deepEqual(found, []);
  });
});

/**
 * Accessibility: axe-core (its source injected into the page) finds no serious or critical violations
 * on the chat page (empty, and after the demo model's task with plan, tool cards and answer) nor in each
 * settings tab, in the light and the dark theme.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { sendTask, serveForFile, skipReason, withPage } from "./support.js";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const skip = skipReason();
const server = serveForFile(skip);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

/** The serious and critical axe violations on the page now, one line each. */
async function seriousViolations(page: Page, where: string): Promise<string[]> {
  // Evaluated over the DevTools protocol: the app's Content-Security-Policy refuses inline script tags.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Violation[] }> } })
      .axe;
    return (await axe.run(document)).violations;
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${where}: ${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => `${JSON.stringify(node.target)} ${node.html.slice(0, 120)}`).join(" | ")}`,
    );
}

async function checkSettings(page: Page, where: string): Promise<string[]> {
  const found: string[] = [];
  await page.getByRole("button", { name: "Settings" }).click();
  for (const tab of ["General", "Memory", "Skills"]) {
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

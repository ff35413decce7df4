/**
 * Settings pages end to end against a real `deerflow serve`: the memory page shows a fact seeded
 * through the memory route, edits it and deletes it (the route sees each change), clear-all asks first;
 * the skills page lists an installed skill and its switch disables it (the skills route reports it).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createTempHome } from "@deerflow/harness/testing";
import { browserForFile, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
const skill = "---\nname: haiku-writer\ndescription: Writes haiku about anything.\n---\n# Haiku\n";
const server = serveForFile(skip, () => ({
  home: createTempHome({ prefix: "deerflow-e2e-", files: { "skills/custom/haiku-writer/SKILL.md": skill } }).path,
}));

const json = (body: unknown, method = "POST"): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
async function facts(): Promise<Array<{ id: string; content: string }>> {
  return ((await (await fetch(`${server.url}/api/memory`)).json()) as { facts: Array<{ id: string; content: string }> })
    .facts;
}

test("memory page: a seeded fact shows with its category and confidence, is edited, deleted, and clear-all asks first", {
  skip,
}, async () => {
  const seeded = await fetch(
    `${server.url}/api/memory/facts`,
    json({ content: "Prefers tea over coffee", category: "preference", confidence: 0.8 }),
  );
  assert.equal(seeded.status, 200);
  await withPage("settings-memory", async (page) => {
    await page.goto(server.url);
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "Memory" }).click();
    const fact = page.getByTestId("memory-fact");
    await fact.getByText("Prefers tea over coffee").waitFor();
    await fact.getByText("preference · confidence 80%").waitFor();

    await page.getByRole("button", { name: "Edit fact: Prefers tea over coffee" }).click();
    await page.getByLabel("Fact content").fill("Prefers green tea");
    await page.getByRole("button", { name: "Save" }).click();
    await fact.getByText("Prefers green tea").waitFor();
    assert.deepEqual(
      (await facts()).map((item) => item.content),
      ["Prefers green tea"],
    );

    await page.getByRole("button", { name: "Delete fact: Prefers green tea" }).click();
    await page.getByTestId("memory-empty").waitFor();
    assert.deepEqual(await facts(), []);

    // Clear all asks first; "Keep" changes nothing, "Clear all" forgets everything.
    await fetch(`${server.url}/api/memory/facts`, json({ content: "Lives in Lisbon" }));
    await fetch(`${server.url}/api/memory/facts`, json({ content: "Works as a nurse" }));
    await page.getByRole("tab", { name: "Skills" }).click();
    await page.getByRole("tab", { name: "Memory" }).click();
    await page.getByText("Works as a nurse").waitFor();
    await page.getByRole("button", { name: "Clear memory…" }).click();
    await page.getByRole("button", { name: "Keep" }).click();
    assert.equal((await facts()).length, 2);
    await page.getByRole("button", { name: "Clear memory…" }).click();
    await page.getByRole("button", { name: "Clear all" }).click();
    await page.getByTestId("memory-empty").waitFor();
    assert.deepEqual(await facts(), []);
  });
});

test("skills page: the switch disables a skill and the skills route reports it disabled", { skip }, async () => {
  await withPage("settings-skills", async (page) => {
    await page.goto(server.url);
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "Skills" }).click();
    const toggle = page.getByRole("switch", { name: "Enable haiku-writer" });
    await toggle.waitFor();
    assert.equal(await toggle.isChecked(), true);
    await page.getByText("Writes haiku about anything.").waitFor();
    await toggle.click();
    await page.waitForFunction(
      () => !(document.querySelector('[aria-label="Enable haiku-writer"]') as HTMLInputElement).checked,
    );
    const skill = (await (await fetch(`${server.url}/api/skills/haiku-writer`)).json()) as { enabled: boolean };
    assert.equal(skill.enabled, false);
    // The state survives a reload: the page reads it back from the server.
    await page.reload();
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "Skills" }).click();
    await page.getByRole("switch", { name: "Enable haiku-writer" }).waitFor();
    assert.equal(await page.getByRole("switch", { name: "Enable haiku-writer" }).isChecked(), false);
  });
});

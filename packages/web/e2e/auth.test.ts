/**
 * The web app against a server that requires an API key: the page loads, asks for the key, says when a
 * key is refused, and with the right key runs a task and previews its artifact (fetched with the key).
 * Also: the app at phone width (the sidebar behind a menu button).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { browserForFile, sendTask, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
const KEY = "e2e-key-0123456789abcdef0123456789";
const server = serveForFile(skip, { apiKeys: KEY });

test("auth on: the API key field appears, a wrong key is refused, the right one works", { skip }, async () => {
  await withPage("auth", async (page) => {
    await page.goto(`${server.url}/`);
    const field = page.getByLabel("API key");
    await field.waitFor();
    await field.fill("wrong-key");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("The server did not accept that key").waitFor();
    await page.getByLabel("API key").fill(KEY);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("What should DeerFlow do?").waitFor();
    await sendTask(page, "Write a note with auth on");
    await page.getByText("I wrote a note about your task").waitFor();
    await page.getByTestId("artifact-preview").locator("h1", { hasText: "Note: Write a note with auth on" }).waitFor();
    // The key is remembered across a reload.
    await page.reload();
    await page.getByText("Task: Write a note with auth on").waitFor();
    assert.equal(await page.getByLabel("API key").count(), 0);
  });
});

test("phone width: the chat fills the screen and the thread list opens from the menu", { skip }, async () => {
  await withPage(
    "phone",
    async (page) => {
      await page.goto(`${server.url}/`);
      await page.getByLabel("API key").fill(KEY);
      await page.getByRole("button", { name: "Continue" }).click();
      const composer = page.getByLabel("Message");
      await composer.waitFor();
      const box = (await composer.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, "the composer fits the screen");
      assert.equal(await page.getByRole("button", { name: "New chat", exact: true }).isVisible(), false);
      await page.getByRole("button", { name: "Chats" }).click();
      await page.getByRole("button", { name: "New chat", exact: true }).waitFor({ state: "visible" });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      assert.equal(overflow, false, "no horizontal scrolling");
      // Escape closes the thread list; the dark theme applies to the page and is remembered.
      await page.keyboard.press("Escape");
      await page.getByRole("button", { name: "New chat", exact: true }).waitFor({ state: "hidden" });
      await page.getByRole("button", { name: "Settings" }).click();
      await page.getByRole("combobox", { name: "Theme" }).selectOption("dark");
      const dark = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(await dark(), "rgb(22, 24, 23)");
      await page.reload();
      await page.getByLabel("Message").waitFor();
      assert.equal(await dark(), "rgb(22, 24, 23)");
    },
    { width: 390, height: 800 },
  );
});

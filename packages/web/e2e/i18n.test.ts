/**
 * The language end to end: a Chromium whose language is zh-CN gets the app in Chinese; Settings switches
 * it to English at once and the choice survives a reload; "follow the browser" brings Chinese back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip);

test("a zh-CN browser gets Chinese; the Settings switch changes to English, kept across a reload, and back", {
  skip,
}, async () => {
  await withPage(
    "i18n-switch",
    async (page) => {
      await page.goto(server.url);
      await page.getByText("想让 DeerFlow 做什么？").waitFor();
      assert.equal(await page.locator("html").getAttribute("lang"), "zh-CN");
      await page.getByPlaceholder("让 DeerFlow 做点什么…").waitFor();

      await page.getByRole("button", { name: "设置" }).click();
      await page.getByLabel("语言").selectOption("en");
      await page.getByText("What should DeerFlow do?").waitFor();
      await page.getByRole("tab", { name: "General" }).waitFor();

      await page.reload();
      await page.getByText("What should DeerFlow do?").waitFor();
      assert.equal(await page.locator("html").getAttribute("lang"), "en");

      await page.getByRole("button", { name: "Settings" }).click();
      await page.getByLabel("Language").selectOption({ label: "Follow the browser" });
      await page.getByText("想让 DeerFlow 做什么？").waitFor();
    },
    undefined,
    "zh-CN",
  );
});

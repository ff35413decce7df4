/**
 * A long thread (400 messages, seeded through the state route) opens at its end with only the messages
 * near the viewport in the DOM (virtualized), and scrolling up brings the first message back.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@langchain/langgraph-sdk";
import { serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip);

test("a 400-message thread is virtualized: it opens at the end, few messages in the DOM, the first reachable by scrolling", {
  skip,
}, async () => {
  const client = new Client({ apiUrl: `${server.url}/api` });
  const thread = await client.threads.create();
  const messages = Array.from({ length: 400 }, (_, i) =>
    i % 2 === 0
      ? { type: "human", id: `long-${i}`, content: `Question ${i}` }
      : { type: "ai", id: `long-${i}`, content: `Answer ${i} about deer.` },
  );
  await client.threads.updateState(thread.thread_id, { values: { messages } });
  await withPage("long-thread", async (page) => {
    await page.goto(`${server.url}/threads/${thread.thread_id}`);
    await page.getByTestId("msg-ai").getByText("Answer 399 about deer.").waitFor();
    const inDom = await page.locator("[data-testid=msg-human], [data-testid=msg-ai]").count();
    assert.ok(inDom > 0 && inDom < 100, `only the messages near the viewport are rendered (${inDom} of 400)`);
    assert.equal(await page.getByTestId("msg-human").getByText("Question 0", { exact: true }).count(), 0);
    // Scroll to the top a screen at a time: the first question comes back into the DOM.
    await page.evaluate(async () => {
      const scroller = document.querySelector(".messages") as HTMLElement;
      for (let step = 0; step < 500 && scroller.scrollTop > 0; step++) {
        scroller.scrollTop = Math.max(0, scroller.scrollTop - 800);
        await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));
      }
    });
    await page.getByTestId("msg-human").getByText("Question 0", { exact: true }).waitFor();
  });
});

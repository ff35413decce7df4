/**
 * The Agents page end to end against a real `deerflow serve` (demo model): create an agent in the
 * editor (a bad name is refused first, saying what is allowed), see its card, chat with it (the run's
 * context carries its name and the header shows the agent chip), edit its soul (the server has the new
 * one), go back to the default agent, and delete it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { browserForFile, sendTask, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
browserForFile();
const server = serveForFile(skip);

async function agentOnServer(name: string): Promise<{ status: number; soul?: string; tool_groups?: string[] | null }> {
  const response = await fetch(`${server.url}/api/agents/${name}`);
  return { status: response.status, ...(response.ok ? ((await response.json()) as object) : {}) };
}

test("agents: create, chat with it, edit its soul, back to the default agent, delete", { skip }, async () => {
  await withPage("agents", async (page) => {
    await page.goto(server.url);
    await page.getByRole("link", { name: "Agents" }).click();
    await page.waitForURL(/\/\?page=agents$/);
    await page.getByText("No custom agents yet.").waitFor();

    await page.getByRole("button", { name: "New agent" }).click();
    await page.getByLabel("Name", { exact: true }).fill("bad name");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("alert").getByText('Letters, digits and "-" only').waitFor();
    await page.getByLabel("Name", { exact: true }).fill("web-poet");
    await page.getByLabel("Description").fill("Writes short poems");
    await page.getByLabel("Soul").fill("You answer in rhyme.");
    await page.getByLabel("Limit its tools to these groups").check();
    await page.getByLabel("bash").uncheck();
    await page.getByRole("button", { name: "Save" }).click();
    const card = page.getByTestId("agent-web-poet");
    await card.getByText("Writes short poems").waitFor();
    const saved = await agentOnServer("web-poet");
    assert.equal(saved.soul, "You answer in rhyme.");
    assert.deepEqual(saved.tool_groups, ["file:read", "file:write", "web"]);

    // A chat with it: the run names the agent.
    const runBodies: string[] = [];
    page.on("request", (request) => {
      if (/\/runs\/stream$/.test(request.url())) runBodies.push(request.postData() ?? "");
    });
    await card.getByRole("button", { name: "Chat" }).click();
    await page.waitForURL((url) => url.pathname === "/" && !url.search);
    await page.getByTestId("agent-chip").getByText("Agent: web-poet").waitFor();
    await sendTask(page, "Write a line about deer");
    await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
    await page.getByTestId("msg-ai").first().waitFor({ timeout: 60_000 });
    assert.ok(
      runBodies.some((body) => body.includes('"agent_name":"web-poet"')),
      runBodies.join("\n"),
    );

    // Edit its soul.
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByRole("button", { name: "Edit web-poet" }).click();
    await page.getByLabel("Soul").fill("You answer in haiku.");
    await page.getByRole("button", { name: "Save" }).click();
    await card.waitFor();
    assert.equal((await agentOnServer("web-poet")).soul, "You answer in haiku.");

    // Back to the default agent, then delete (asked first).
    await page.getByRole("button", { name: "Use the default agent" }).click();
    await page.waitForURL((url) => url.pathname === "/" && !url.search);
    assert.equal(await page.getByTestId("agent-chip").count(), 0);
    await page.getByRole("link", { name: "Agents" }).click();
    await page.getByRole("button", { name: "Delete web-poet" }).click();
    await page.getByRole("button", { name: "Delete with its memory" }).click();
    await page.getByText("No custom agents yet.").waitFor();
    assert.equal((await agentOnServer("web-poet")).status, 404);
  });
});

/**
 * The MCP settings page against a real `deerflow serve` with `server.mcp_config_writes: true`: a server
 * added in the form lands in extensions_config.json, its switch disables it (the file says so), a bad
 * URL shows the form's reason and a stdio command the allow-list refuses shows the server's, with
 * nothing written; remove asks first. The Subagents tab lists the built-in kind.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip, { configYaml: "server: {mcp_config_writes: true}\n" });

const servers = () => {
  const file = path.join(server.home, "extensions_config.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
};

test("MCP page: add a server, disable it, bad input shows why, remove after confirming", { skip }, async () => {
  await withPage("mcp-settings", async (page) => {
    await page.goto(server.url);
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "MCP" }).click();
    await page.getByText("No MCP servers are configured.").waitFor();

    await page.getByRole("button", { name: "Add server…" }).click();
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name", { exact: true }).fill("search");
    await form.getByLabel("URL").fill("ftp://example.com/mcp");
    await form.getByRole("button", { name: "Save server" }).click();
    await page
      .getByTestId("mcp-error")
      .getByText('"ftp://example.com/mcp" is not an http:// or https:// URL.')
      .waitFor();

    await form.getByLabel("URL").fill("http://127.0.0.1:9/mcp");
    await form.getByLabel("Headers (Name=value per line)").fill("Authorization=Bearer secret-token");
    await form.getByLabel("Description").fill("Web search");
    await form.getByRole("button", { name: "Save server" }).click();
    const row = page.locator('[data-testid="mcp-server"][data-name="search"]');
    await row.getByText("Web search").waitFor();
    await page.getByText("Restart the server to connect").waitFor();
    assert.deepEqual(servers().search, {
      type: "http",
      url: "http://127.0.0.1:9/mcp",
      headers: { Authorization: "Bearer secret-token" },
      enabled: true,
      description: "Web search",
    });

    await row.getByRole("switch", { name: "Enable search" }).click();
    await page.waitForFunction(() => {
      const box = document.querySelector<HTMLInputElement>('[data-name="search"] input[role="switch"]');
      return box && !box.checked;
    });
    assert.equal(servers().search!.enabled, false);

    // The server's refusal: a stdio command the allow-list does not name.
    await page.getByRole("button", { name: "Add server…" }).click();
    await form.getByLabel("Name", { exact: true }).fill("shell");
    await form.getByLabel("Transport").selectOption("stdio");
    await form.getByLabel("Command").fill("bash");
    await form.getByLabel("Arguments (one per line)").fill("-c\nid");
    await form.getByRole("button", { name: "Save server" }).click();
    await page.getByTestId("mcp-error").getByText("server.mcp_stdio_allow", { exact: false }).waitFor();
    assert.equal(servers().shell, undefined, "nothing written");
    await form.getByRole("button", { name: "Cancel" }).click();

    await row.getByRole("button", { name: "Remove search" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Remove" }).click();
    await page.getByText("No MCP servers are configured.").waitFor();
    assert.deepEqual(servers(), {});

    // The Subagents tab lists the built-in kind with its limits.
    await page.getByRole("tab", { name: "Subagents" }).click();
    await page.getByTestId("subagent-kind").filter({ hasText: "general-purpose" }).getByText("built-in").waitFor();
  });
});

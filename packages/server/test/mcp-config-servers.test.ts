/**
 * One MCP server at a time over real HTTP (`/api/mcp/config/servers/{name}`, the web app's MCP page):
 * add, edit without losing masked secrets, disable and enable, remove; bad entries, config.yaml's own
 * servers and unknown names refused with the reason; nothing written while writes are off.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { tempHome } from "@deerflow/harness/testing";
import { startTestServer } from "./helpers.js";

const send = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
type Listing = { mcp_servers: Record<string, Record<string, unknown>>; restart_required?: boolean };

test("mcp/config/servers: add, edit keeping masked secrets, disable, enable and remove one server", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-one-" });
  const extensions = path.join(dir, "extensions_config.json");
  fs.writeFileSync(extensions, JSON.stringify({ skills: { a: { enabled: false } } }));
  const t = await startTestServer({
    yaml: "server: {mcp_config_writes: true}\nmcp_servers: {pinned: {transport: http, url: 'http://127.0.0.1:1/pinned'}}",
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions },
  });
  const base = `${t.url}/api/mcp/config/servers`;
  const file = () => JSON.parse(fs.readFileSync(extensions, "utf8")) as { mcpServers?: Record<string, unknown> };
  try {
    const web = {
      type: "http",
      url: "http://127.0.0.1:1/mcp?token=url-secret",
      headers: { Authorization: "Bearer header-secret" },
    };
    const added = await fetch(`${base}/web`, send("PUT", web));
    assert.equal(added.status, 200);
    const listing = (await added.json()) as Listing;
    assert.equal(listing.restart_required, true);
    assert.deepEqual(listing.mcp_servers.web!.headers, { Authorization: "***" });
    assert.equal(listing.mcp_servers.web!.editable, true);
    assert.equal(listing.mcp_servers.pinned!.editable, false);
    assert.deepEqual(file().mcpServers, { web });

    // The page sends back what it was shown, with a new description: the secrets stay as stored.
    const shown = listing.mcp_servers.web!;
    const edited = { type: "http", url: shown.url, headers: shown.headers, description: "Search" };
    assert.equal((await fetch(`${base}/web`, send("PUT", edited))).status, 200);
    assert.deepEqual(file().mcpServers, { web: { ...web, description: "Search" } });

    const off = (await (await fetch(`${base}/web`, send("PATCH", { enabled: false }))).json()) as Listing;
    assert.equal(off.mcp_servers.web!.enabled, false);
    assert.equal(off.mcp_servers.web!.description, "Search", "a disabled server is still described");
    assert.deepEqual(off.mcp_servers.web!.headers, { Authorization: "***" });
    assert.equal((file().mcpServers!.web as { enabled: boolean }).enabled, false);
    const on = (await (await fetch(`${base}/web`, send("PATCH", { enabled: true }))).json()) as Listing;
    assert.equal(on.mcp_servers.web!.enabled, true);

    assert.equal((await fetch(`${base}/web`, send("DELETE"))).status, 200);
    assert.deepEqual(file().mcpServers, {});
    assert.deepEqual((file() as { skills?: unknown }).skills, { a: { enabled: false } }, "other keys kept");
  } finally {
    await t.close();
  }
});

test("mcp/config/servers: bad entries, bad names, config.yaml's servers and unknown names are refused with why", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-one-" });
  const extensions = path.join(dir, "extensions_config.json");
  const t = await startTestServer({
    yaml: "server: {mcp_config_writes: true}\nmcp_servers: {pinned: {transport: http, url: 'http://127.0.0.1:1/pinned'}}",
    harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions },
  });
  const base = `${t.url}/api/mcp/config/servers`;
  const detail = async (response: Response) => ((await response.json()) as { detail: string }).detail;
  try {
    const noUrl = await fetch(`${base}/web`, send("PUT", { type: "http" }));
    assert.equal(noUrl.status, 422);
    assert.match(await detail(noUrl), /url/);
    const stdio = await fetch(`${base}/shell`, send("PUT", { type: "stdio", command: "bash", args: ["-c", "id"] }));
    assert.equal(stdio.status, 422);
    assert.match(await detail(stdio), /server\.mcp_stdio_allow/);
    const badName = await fetch(`${base}/two%20words`, send("PUT", { type: "http", url: "http://127.0.0.1:1/" }));
    assert.equal(badName.status, 422);
    assert.match(await detail(badName), /letters, digits/);
    const pinned = await fetch(`${base}/pinned`, send("PATCH", { enabled: false }));
    assert.equal(pinned.status, 409);
    assert.match(await detail(pinned), /config\.yaml/);
    const unknown = await fetch(`${base}/nobody`, send("DELETE"));
    assert.equal(unknown.status, 404);
    assert.equal(fs.existsSync(extensions), false, "nothing written by refused requests");
  } finally {
    await t.close();
  }
});

test("mcp/config/servers: 403 with how to enable it while server.mcp_config_writes is off", async (ctx) => {
  const dir = tempHome(ctx, { prefix: "mcp-one-" });
  const extensions = path.join(dir, "extensions_config.json");
  const t = await startTestServer({ harnessEnv: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions } });
  try {
    const response = await fetch(
      `${t.url}/api/mcp/config/servers/web`,
      send("PUT", { type: "http", url: "http://127.0.0.1:1/" }),
    );
    assert.equal(response.status, 403);
    assert.match(((await response.json()) as { detail: string }).detail, /mcp_config_writes: true/);
    assert.equal(fs.existsSync(extensions), false);
  } finally {
    await t.close();
  }
});

/** `deerflow mcp list` run as a user runs it, against the reference filesystem server from npm. */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome } from "../../harness/src/testing/index.js";
import { CLI, deerflow } from "./run-cli.js";

const FILESYSTEM_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

test("mcp list shows each server's state and tools, and why a server did not start", async () => {
  const dir = createTempHome({ prefix: "df-cli-mcp-", files: { "data/a.txt": "a" } });
  try {
    const servers = {
      filesystem: { type: "stdio", command: process.execPath, args: [FILESYSTEM_SERVER, path.join(dir.path, "data")] },
      ghost: { command: "/nonexistent/ghost-mcp" },
      off: { enabled: false, command: "x" },
    };
    writeFileSync(path.join(dir.path, "extensions_config.json"), JSON.stringify({ mcpServers: servers }));
    const result = await deerflow(dir.path, ["mcp", "list"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^filesystem {2}connected {2}stdio /m);
    assert.match(result.stdout, /^ {2}- list_directory: /m);
    assert.match(result.stdout, /^ghost {2}failed {2}stdio /m);
    assert.match(result.stdout, /^ {2}error: the command was not found/m);
    assert.match(result.stdout, /^off {2}skipped {2}disabled/m);
    assert.match(result.stderr, /warning: MCP server "ghost" .* did not start/);

    const json = await deerflow(dir.path, ["mcp", "list", "--json"]);
    const parsed = JSON.parse(json.stdout) as { servers: { name: string; state: string; tools: unknown[] }[] };
    assert.deepEqual(parsed.servers.map((server) => [server.name, server.state]), [["filesystem", "connected"], ["ghost", "failed"]]);
  } finally {
    dir.cleanup();
  }
});

test("mcp list without servers says how to add one", async () => {
  const dir = createTempHome({ prefix: "df-cli-mcp-" });
  try {
    const result = await deerflow(dir.path, ["mcp", "list"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /No MCP servers configured/);
  } finally {
    dir.cleanup();
  }
});

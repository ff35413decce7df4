/** MCP from the command line, as a user runs it, against the reference filesystem server from npm. */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createTempHome, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { CLI, deerflow } from "./run-cli.js";

const FILESYSTEM_SERVER = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

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
    assert.deepEqual(
      parsed.servers.map((server) => [server.name, server.state]),
      [
        ["filesystem", "connected"],
        ["ghost", "failed"],
      ],
    );
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

test("deerflow run lists and reads files through the filesystem server added in extensions_config.json", async () => {
  const dir = createTempHome({ prefix: "df-cli-mcp-", files: { "notes/plan.md": "Launch on Friday.\n" } });
  const notes = path.join(dir.path, "notes");
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "list_directory", arguments: { path: notes } }] },
      { tool_calls: [{ name: "read_text_file", arguments: { path: path.join(notes, "plan.md") } }] },
      { content: "The plan: launch on Friday." },
    ],
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk-test, base_url: '${server.url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    writeFileSync(
      path.join(dir.path, "extensions_config.json"),
      JSON.stringify({
        mcpServers: {
          filesystem: { enabled: true, type: "stdio", command: process.execPath, args: [FILESYSTEM_SERVER, notes] },
        },
      }),
    );
    const result = await deerflow(dir.path, ["run", "What is in my notes folder?"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "The plan: launch on Friday.");
    assert.match(result.stderr, /list_directory/);
    const toolResults = server.requests[2]!.messages.filter((message) => message.role === "tool").map((message) =>
      String(message.content),
    );
    assert.deepEqual(toolResults, ["[FILE] plan.md", "Launch on Friday.\n"]);
  } finally {
    await server.close();
    dir.cleanup();
  }
});

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { createTempHome } from "../testing/index.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, FIXTURES } from "../../test/mcp/reference-servers.js";
import { createMcpService } from "./mcp-service.js";
import { McpServerInput, type McpServerSpec, toServerSpec } from "./server-spec.js";

const fixtures = FIXTURES;
const FILESYSTEM = FILESYSTEM_SERVER;
const EVERYTHING = EVERYTHING_SERVER;

const spec = (name: string, input: Record<string, unknown>): McpServerSpec =>
  toServerSpec(name, McpServerInput.parse(input), { env: process.env, source: "test" });
const byName = (tools: StructuredToolInterface[], name: string) => {
  const found = tools.find((tool) => tool.name === name);
  assert.ok(found, `no tool ${name} among ${tools.map((tool) => tool.name).join(", ")}`);
  return found;
};
const call = async (tool: StructuredToolInterface, args: Record<string, unknown>) =>
  (await tool.invoke({ id: "call-1", name: tool.name, args, type: "tool_call" })) as ToolMessage;

test("the reference filesystem server over stdio lists and reads files; a tool named like a built-in is prefixed", async () => {
  const dir = createTempHome({ prefix: "df-mcp-fs-" });
  const mcp = createMcpService([spec("filesystem", { command: process.execPath, args: [FILESYSTEM, dir.path] })], {
    onWarning: assert.fail,
  });
  try {
    writeFileSync(path.join(dir.path, "notes.txt"), "the answer is 42\n");
    const tools = await mcp.tools({ reservedNames: ["read_file", "ls"] });
    assert.ok(
      tools.some((tool) => tool.name === "filesystem_read_file"),
      "read_file collides with the built-in, so it is prefixed",
    );
    const listing = await call(byName(tools, "list_directory"), { path: dir.path });
    assert.match(String(listing.content), /\[FILE\] notes\.txt/);
    const read = await call(byName(tools, "read_text_file"), { path: path.join(dir.path, "notes.txt") });
    assert.equal(read.content, "the answer is 42\n");
    assert.equal(read.status, "success");
    const outside = await call(byName(tools, "read_text_file"), { path: "/etc/hostname" });
    assert.equal(outside.status, "error");
    assert.match(String(outside.content), /read_text_file \(server filesystem\).*Access denied/);
    const [status] = mcp.status();
    assert.equal(status!.state, "connected");
    assert.ok(status!.tools.some((tool) => tool.name === "read_file"));
  } finally {
    await mcp.close();
    dir.cleanup();
  }
});

test("a stdio server sees only the variables it declares (plus PATH and HOME), with $VAR substituted", async () => {
  process.env.DEERFLOW_TEST_SECRET = "sk-do-not-leak";
  process.env.DEERFLOW_TEST_TOKEN = "token-123";
  const mcp = createMcpService([
    spec("everything", {
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      env: { GREETING: "hello", TOKEN: "$DEERFLOW_TEST_TOKEN" },
    }),
  ]);
  try {
    const tools = await mcp.tools();
    const result = await call(byName(tools, "get-env"), {});
    const env = JSON.parse(String(result.content)) as Record<string, string>;
    assert.equal(env.GREETING, "hello");
    assert.equal(env.TOKEN, "token-123");
    assert.equal(env.DEERFLOW_TEST_SECRET, undefined);
    assert.ok(env.PATH);
  } finally {
    delete process.env.DEERFLOW_TEST_SECRET;
    delete process.env.DEERFLOW_TEST_TOKEN;
    await mcp.close();
  }
});

test("a missing command and a server that hangs at start are warnings; the other server still works", async () => {
  const warnings: string[] = [];
  const mcp = createMcpService(
    [
      spec("ghost", { command: "/nonexistent/mcp-server-ghost" }),
      spec("sleepy", {
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)"],
        session_init_timeout: 1,
      }),
      spec("flaky", { command: process.execPath, args: [path.join(fixtures, "flaky-server.mjs")] }),
    ],
    { onWarning: (message) => warnings.push(message) },
  );
  try {
    const tools = await mcp.tools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), ["crash", "echo", "fail", "hang"]);
    assert.equal((await call(byName(tools, "echo"), { text: "hi" })).content, "echo: hi");
    const states = Object.fromEntries(mcp.status().map((status) => [status.name, status.state]));
    assert.deepEqual(states, { ghost: "failed", sleepy: "failed", flaky: "connected" });
    assert.equal(warnings.length, 2);
    assert.match(warnings.find((w) => w.includes("ghost"))!, /did not start: .*not found/);
    assert.match(warnings.find((w) => w.includes("sleepy"))!, /did not finish starting within 1 s/);
  } finally {
    await mcp.close();
  }
});

test("a crash mid-call, a tool error and a garbage result are error ToolMessages; a crashed server restarts on the next call", async () => {
  const dir = createTempHome({ prefix: "df-mcp-flaky-" });
  const log = path.join(dir.path, "starts.log");
  mkdirSync(dir.path, { recursive: true });
  const mcp = createMcpService([
    spec("flaky", {
      command: process.execPath,
      args: [path.join(fixtures, "flaky-server.mjs")],
      env: { START_LOG: log },
    }),
    spec("garbage", { command: process.execPath, args: [path.join(fixtures, "garbage-server.mjs")] }),
  ]);
  try {
    const tools = await mcp.tools();
    const crashed = await call(byName(tools, "crash"), {});
    assert.equal(crashed.status, "error");
    assert.match(String(crashed.content), /^Error: MCP tool crash \(server flaky\) failed: .*stopped during the call/);
    const failed = await call(byName(tools, "fail"), {});
    assert.equal(failed.status, "error");
    assert.match(String(failed.content), /MCP tool fail \(server flaky\) failed: .*the disk is on fire/);
    const garbage = await call(byName(tools, "mangle"), {});
    assert.equal(garbage.status, "error");
    assert.match(String(garbage.content), /MCP tool mangle \(server garbage\) failed/);
    const again = await call(byName(tools, "echo"), { text: "back" });
    assert.equal(again.content, "echo: back");
    assert.equal(readFileSync(log, "utf8"), "start\nstart\n");
  } finally {
    await mcp.close();
    dir.cleanup();
  }
});

test("a call that never returns is ended by tool_call_timeout as an error ToolMessage; the server keeps serving", async () => {
  const mcp = createMcpService([
    spec("flaky", { command: process.execPath, args: [path.join(fixtures, "flaky-server.mjs")], tool_call_timeout: 1 }),
  ]);
  try {
    const tools = await mcp.tools();
    const hung = await call(byName(tools, "hang"), {});
    assert.equal(hung.status, "error");
    assert.match(String(hung.content), /MCP tool hang \(server flaky\) failed: .*timed out/i);
    assert.equal((await call(byName(tools, "echo"), { text: "still here" })).content, "echo: still here");
  } finally {
    await mcp.close();
  }
});

test("closing the service during a start that hangs returns without waiting for the deadline", async () => {
  const mcp = createMcpService(
    [
      spec("sleepy", {
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1000)"],
        session_init_timeout: 600,
      }),
    ],
    { onWarning: () => {} },
  );
  const connecting = mcp.connect();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await mcp.close();
  await connecting;
  assert.equal(mcp.status()[0]!.state, "closed");
});

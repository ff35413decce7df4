/**
 * MCP through whole lead-agent runs: the real ChatOpenAI client against the fake OpenAI server, and
 * real MCP servers we did not write (the official reference servers from npm) over stdio, streamable
 * HTTP and SSE, configured the way a user configures them.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createLeadAgent, type LeadAgent, type LeadAgentOptions } from "../../src/agent/create-lead-agent.js";
import type { AppConfig } from "../../src/config/schema.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { createMcpService } from "../../src/mcp/mcp-service.js";
import { resolveMcpServers } from "../../src/mcp/resolve-servers.js";
import { createTempHome, startFakeOpenAIServer, type ChatCompletionRequest } from "../../src/testing/index.js";
import { FILESYSTEM_SERVER, FIXTURES, startEverythingOverHttp } from "./reference-servers.js";

const modelYaml = (url: string) =>
  `models:\n  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\nsandbox: {use: local}\n`;
const baseEnv = () => ({ PATH: process.env.PATH, HOME: process.env.HOME });
const toolNames = (request: ChatCompletionRequest) => (request.tools ?? []).map((entry) => entry.function.name);
const toolResults = (request: ChatCompletionRequest) =>
  request.messages.filter((message) => message.role === "tool").map((message) => String(message.content));
const systemText = (request: ChatCompletionRequest) =>
  request.messages
    .filter((message) => message.role === "system")
    .map((message) => JSON.stringify(message.content))
    .join("\n");

/** Creates the lead agent, runs `work` with it, and closes it (its MCP clients with it) whatever happens. */
async function withLeadAgent(
  config: AppConfig,
  options: LeadAgentOptions,
  work: (agent: LeadAgent) => Promise<void>,
): Promise<void> {
  const agent = await createLeadAgent(config, options);
  try {
    await work(agent);
  } finally {
    await agent.close();
  }
}

test("a user adds the filesystem server in extensions_config.json; the agent lists and reads files through it", async () => {
  const home = createTempHome({
    files: { "data/report.txt": "Quarterly revenue: 42 million.\n", "data/todo.md": "- ship MCP\n" },
  });
  const data = path.join(home.path, "data");
  const extensions = path.join(home.path, "extensions_config.json");
  writeFileSync(
    extensions,
    JSON.stringify({
      mcpServers: {
        filesystem: {
          enabled: true,
          type: "stdio",
          command: process.execPath,
          args: [FILESYSTEM_SERVER, data],
          env: {},
        },
      },
      skills: {},
    }),
  );
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "list_directory", arguments: { path: data } }] },
      { tool_calls: [{ name: "read_text_file", arguments: { path: path.join(data, "report.txt") } }] },
      { content: "Revenue was 42 million." },
    ],
  });
  try {
    const config = parseConfigText(modelYaml(server.url), { source: path.join(home.path, "config.yaml"), env: {} });
    await withLeadAgent(
      config,
      { home: path.join(home.path, ".deer-flow"), env: { ...baseEnv(), DEER_FLOW_EXTENSIONS_CONFIG_PATH: extensions } },
      async (agent) => {
        const out = await agent.invoke(
          { messages: [{ role: "user", content: "What does the report in my data folder say?" }] },
          { configurable: { thread_id: "fs" } },
        );
        assert.equal(out.messages.at(-1)!.content, "Revenue was 42 million.");
        assert.ok(
          !agent.deerflow.middlewareNames.includes("deferred-tools"),
          "14 tools are under the default threshold: nothing is deferred",
        );
        const offered = toolNames(server.requests[0]!);
        for (const name of ["read_file", "filesystem_read_file", "list_directory", "read_text_file"])
          assert.ok(offered.includes(name), `${name} missing from ${offered.join(", ")}`);
        const results = toolResults(server.requests[2]!);
        assert.match(results[0]!, /\[FILE\] report\.txt/);
        assert.match(results[0]!, /\[FILE\] todo\.md/);
        assert.equal(results[1], "Quarterly revenue: 42 million.\n");
        assert.equal(server.rejected.length, 0);
      },
    );
  } finally {
    await server.close();
    home.cleanup();
  }
});

for (const mode of ["streamableHttp", "sse"] as const) {
  test(`the everything reference server over ${mode === "sse" ? "SSE" : "streamable HTTP"} answers tool calls in a run`, async () => {
    const home = createTempHome();
    const everything = await startEverythingOverHttp(mode);
    const server = await startFakeOpenAIServer({
      strict: true,
      script: [
        {
          tool_calls: [
            { name: "echo", arguments: { message: "hello over HTTP" } },
            { name: "get-sum", arguments: { a: 2, b: 3 } },
          ],
        },
        { content: "done" },
      ],
    });
    try {
      const yaml = `${modelYaml(server.url)}mcp_servers:\n  everything: {url: '${everything.url}'${mode === "sse" ? ", transport: sse" : ""}, headers: {X-Test: yes}}\n`;
      await withLeadAgent(
        parseConfigText(yaml, { source: null, env: {} }),
        { home: home.path, env: baseEnv(), onWarning: assert.fail },
        async (agent) => {
          await agent.invoke(
            { messages: [{ role: "user", content: "echo and add" }] },
            { configurable: { thread_id: "http" } },
          );
          const results = toolResults(server.requests[1]!);
          assert.deepEqual(results, ["Echo: hello over HTTP", "The sum of 2 and 3 is 5."]);
        },
      );
    } finally {
      await server.close();
      await everything.close();
      home.cleanup();
    }
  });
}

test("past the threshold, MCP tools are deferred: a catalogue and tool_search, promoted tools bound on later calls", async () => {
  const home = createTempHome({ files: { "data/a.txt": "alpha\n" } });
  const data = path.join(home.path, "data");
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "list_directory", arguments: { path: data } }] },
      { tool_calls: [{ name: "tool_search", arguments: { query: "select:list_directory" } }] },
      { tool_calls: [{ name: "list_directory", arguments: { path: data } }] },
      { content: "There is a.txt." },
    ],
  });
  try {
    const yaml = `${modelYaml(server.url)}tool_search: {threshold: 5}\nmcp_servers:\n  filesystem: {command: '${process.execPath}', args: ['${FILESYSTEM_SERVER}', '${data}']}\n`;
    await withLeadAgent(
      parseConfigText(yaml, { source: null, env: {} }),
      { home: path.join(home.path, ".deer-flow"), env: baseEnv() },
      async (agent) => {
        assert.deepEqual(agent.deerflow.middlewareNames.slice(-5), [
          "deferred-tools",
          "loop-detection",
          "token-usage",
          "context-guard",
          "clarification",
        ]);
        assert.ok(agent.deerflow.toolNames.includes("tool_search"));
        const out = await agent.invoke(
          { messages: [{ role: "user", content: "what is in data?" }] },
          { configurable: { thread_id: "deferred" } },
        );
        const [first, , third, fourth] = server.requests;
        assert.ok(toolNames(first!).includes("tool_search"));
        assert.ok(!toolNames(first!).includes("list_directory"), "deferred tools are not bound before promotion");
        assert.ok(toolNames(first!).includes("read_file"), "built-in tools stay bound");
        assert.match(systemText(first!), /<available-deferred-tools>/);
        assert.match(systemText(first!), /- list_directory: /);
        assert.match(
          toolResults(server.requests[1]!)[0]!,
          /list_directory is in the deferred tool catalogue and is not loaded yet/,
        );
        assert.match(toolResults(third!)[1]!, /Loaded 1 tool\(s\)[\s\S]*"name": "list_directory"/);
        assert.ok(toolNames(third!).includes("list_directory"), "promoted tool is bound on the next call");
        assert.ok(!toolNames(third!).includes("read_text_file"));
        assert.match(toolResults(fourth!)[2]!, /\[FILE\] a\.txt/);
        assert.deepEqual((out as { promoted_tools?: string[] }).promoted_tools, ["list_directory"]);
        assert.equal(server.rejected.length, 0);
      },
    );
  } finally {
    await server.close();
    home.cleanup();
  }
});

test("one MCP service is shared by several agents; a crash mid-call is an error ToolMessage and the run goes on", async () => {
  const home = createTempHome();
  const config = parseConfigText(
    `sandbox: {use: local}\nmemory: {enabled: false}\ntitle: {enabled: false}\nmcp_servers:\n  flaky: {command: '${process.execPath}', args: ['${path.join(FIXTURES, "flaky-server.mjs")}']}\n`,
    {
      source: null,
      env: {},
    },
  );
  const { servers } = resolveMcpServers(config, { env: {}, cwd: home.path });
  const mcp = createMcpService(servers, { env: baseEnv() });
  const server = await startFakeOpenAIServer({
    strict: true,
    script: [
      { tool_calls: [{ name: "crash", arguments: {} }] },
      { content: "The tool crashed; continuing without it." },
      { tool_calls: [{ name: "echo", arguments: { text: "again" } }] },
      { content: "ok" },
    ],
  });
  try {
    const withModel = parseConfigText(`${modelYaml(server.url)}`, { source: null, env: {} });
    const first = await createLeadAgent(withModel, { home: home.path, env: baseEnv(), mcp });
    const out = await first.invoke(
      { messages: [{ role: "user", content: "crash it" }] },
      { configurable: { thread_id: "a" } },
    );
    assert.equal(out.messages.at(-1)!.content, "The tool crashed; continuing without it.");
    assert.match(toolResults(server.requests[1]!)[0]!, /^Error: MCP tool crash \(server flaky\) failed/);
    await first.close();
    assert.equal(mcp.status()[0]!.state, "disconnected", "closing an agent leaves a shared service alone");

    const second = await createLeadAgent(withModel, { home: home.path, env: baseEnv(), mcp });
    await second.invoke({ messages: [{ role: "user", content: "echo" }] }, { configurable: { thread_id: "b" } });
    assert.equal(toolResults(server.requests[3]!)[0], "echo: again");
    assert.equal(mcp.status()[0]!.state, "connected", "the server was started again");
    await second.close();
  } finally {
    await mcp.close();
    await server.close();
    home.cleanup();
  }
  assert.equal(mcp.status()[0]!.state, "closed");
});

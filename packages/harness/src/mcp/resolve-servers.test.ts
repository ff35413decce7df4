import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parseConfigText } from "../config/load-config.js";
import { createTempHome } from "../testing/index.js";
import { findExtensionsFile } from "../config/extensions-file.js";
import { resolveMcpServers } from "./resolve-servers.js";

const noServers = parseConfigText("", { source: null, env: {} });

test("extensions_config.json is found through DEER_FLOW_EXTENSIONS_CONFIG_PATH, then the working directory, then its parent", () => {
  const home = createTempHome({
    files: { "extensions_config.json": "{}", "app/x": "", "other/extensions_config.json": "{}" },
  });
  try {
    const app = path.join(home.path, "app");
    assert.deepEqual(findExtensionsFile({ env: {}, cwd: app }), {
      path: path.join(home.path, "extensions_config.json"),
      exists: true,
    });
    writeFileSync(path.join(app, "extensions_config.json"), "{}");
    assert.deepEqual(findExtensionsFile({ env: {}, cwd: app }), {
      path: path.join(app, "extensions_config.json"),
      exists: true,
    });
    assert.deepEqual(
      findExtensionsFile({ env: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: "../other/extensions_config.json" }, cwd: app }),
      {
        path: path.join(home.path, "other/extensions_config.json"),
        exists: true,
      },
    );
    // A path named in the environment that does not exist yet means "no MCP servers" (skills create it on first write).
    assert.equal(
      findExtensionsFile({ env: { DEER_FLOW_EXTENSIONS_CONFIG_PATH: "missing.json" }, cwd: app }).exists,
      false,
    );
    const lonely = path.join(home.path, "a/b");
    mkdirSync(lonely, { recursive: true });
    assert.equal(findExtensionsFile({ env: {}, cwd: lonely }).exists, false);
  } finally {
    home.cleanup();
  }
});

test("DeerFlow's extensions file shape loads: type, env with $VAR, headers, extra keys ignored, disabled servers skipped", () => {
  const file = {
    mcpServers: {
      github: {
        enabled: true,
        type: "stdio",
        command: "npx",
        args: ["-y", "server-github"],
        env: { GITHUB_TOKEN: "$GH" },
        routing: { mode: "prefer" },
        tool_name_prefix: true,
      },
      remote: {
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer ${API_TOKEN}" },
        session_init_timeout: 5,
      },
      old: { enabled: false, command: "old-server" },
    },
    skills: { x: { enabled: true } },
  };
  const home = createTempHome({ files: { "extensions_config.json": JSON.stringify(file) } });
  try {
    const resolved = resolveMcpServers(noServers, {
      env: { GH: "ghp_1", API_TOKEN: "t0k" },
      cwd: home.path,
      onWarning: assert.fail,
    });
    assert.equal(resolved.extensionsFile, path.join(home.path, "extensions_config.json"));
    const [github, remote] = resolved.servers;
    assert.deepEqual(
      { ...github, source: "" },
      {
        name: "github",
        transport: "stdio",
        command: "npx",
        args: ["-y", "server-github"],
        env: { GITHUB_TOKEN: "ghp_1" },
        url: undefined,
        headers: {},
        description: undefined,
        toolNamePrefix: true,
        startupTimeoutMs: 60000,
        toolCallTimeoutMs: 60000,
        source: "",
      },
    );
    assert.equal(remote!.transport, "http");
    assert.deepEqual(remote!.headers, { Authorization: "Bearer t0k" });
    assert.equal(remote!.startupTimeoutMs, 5000);
    assert.deepEqual(resolved.skipped, [{ name: "old", reason: "disabled" }]);
  } finally {
    home.cleanup();
  }
});

test("a bad server entry is a warning naming the server and what to fix; the others are kept", () => {
  const file = {
    mcpServers: {
      nocmd: { type: "stdio" },
      nourl: { type: "sse" },
      novar: { command: "x", env: { K: "$NOT_SET_ANYWHERE" } },
      wrong: { args: "not-a-list", command: "x" },
      good: { command: "ok" },
    },
  };
  const home = createTempHome({ files: { "extensions_config.json": JSON.stringify(file) } });
  const warnings: string[] = [];
  try {
    const resolved = resolveMcpServers(noServers, { env: {}, cwd: home.path, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(
      resolved.servers.map((server) => server.name),
      ["good"],
    );
    assert.equal(warnings.length, 4);
    assert.match(warnings[0]!, /"nocmd" .* stdio server without a command/);
    assert.match(warnings[1]!, /"nourl" .* uses sse but has no "url"/);
    assert.match(warnings[2]!, /"novar" .* env\.K uses \$NOT_SET_ANYWHERE, which is not set/);
    assert.match(warnings[3]!, /"wrong" .* is not valid: args:/);
  } finally {
    home.cleanup();
  }
});

test("config.yaml mcp_servers join the extensions file; the same name in both uses config.yaml's", () => {
  const home = createTempHome({
    files: {
      "extensions_config.json": JSON.stringify({
        mcpServers: { fs: { command: "from-json" }, other: { command: "other" } },
      }),
    },
  });
  const warnings: string[] = [];
  try {
    const config = parseConfigText(
      "mcp_servers:\n  fs: {command: from-yaml}\n  web: {url: 'http://127.0.0.1:9/mcp'}\n",
      { source: "/etc/deerflow/config.yaml", env: {} },
    );
    const { servers } = resolveMcpServers(config, { env: {}, cwd: home.path, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(
      servers.map((server) => [server.name, server.command ?? server.url, server.transport]),
      [
        ["fs", "from-yaml", "stdio"],
        ["other", "other", "stdio"],
        ["web", "http://127.0.0.1:9/mcp", "http"],
      ],
    );
    assert.match(warnings[0]!, /"fs" is declared in both .* using the one in \/etc\/deerflow\/config\.yaml/);
  } finally {
    home.cleanup();
  }
});

test("an extensions file that is not JSON is a warning with the file and the reason; config.yaml servers still load", () => {
  const home = createTempHome({ files: { "extensions_config.json": "{ mcpServers: " } });
  try {
    const warnings: string[] = [];
    const config = parseConfigText("mcp_servers:\n  fs: {command: fs-server}\n", { source: null, env: {} });
    const { servers } = resolveMcpServers(config, { env: {}, cwd: home.path, onWarning: (w) => warnings.push(w) });
    assert.deepEqual(
      servers.map((server) => server.name),
      ["fs"],
    );
    assert.match(warnings.join("\n"), /extensions_config\.json is not valid JSON.*MCP servers are skipped/);
  } finally {
    home.cleanup();
  }
});

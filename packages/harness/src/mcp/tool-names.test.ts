import assert from "node:assert/strict";
import { test } from "node:test";
import { assignToolNames, sanitizeToolName } from "./tool-names.js";

test("MCP tools keep their names unless they clash with a built-in or another server's tool", () => {
  const names = assignToolNames(
    [
      { server: "fs", tool: "read_file", alwaysPrefix: false },
      { server: "fs", tool: "list_directory", alwaysPrefix: false },
      { server: "web", tool: "search", alwaysPrefix: false },
      { server: "docs", tool: "search", alwaysPrefix: false },
      { server: "gh", tool: "issues", alwaysPrefix: true },
    ],
    ["read_file", "bash"],
  );
  assert.deepEqual(names, ["fs_read_file", "list_directory", "web_search", "docs_search", "gh_issues"]);
});

test("names are made acceptable to model APIs and stay unique", () => {
  assert.equal(sanitizeToolName("files.read v2"), "files_read_v2");
  assert.equal(sanitizeToolName("x".repeat(80)).length, 64);
  const names = assignToolNames([{ server: "a", tool: "t", alwaysPrefix: true }], ["a_t"]);
  assert.deepEqual(names, ["a_t_2"]);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { mergePromotedTools } from "./deferred-tools.js";
import { searchCatalog } from "./tool-search.js";

const catalog = [
  { name: "read_text_file", description: "Read the complete contents of a file as text" },
  { name: "list_directory", description: "Get a listing of files in a directory" },
  { name: "search_files", description: "Recursively search for files matching a pattern" },
  { name: "get_issue", description: "Fetch a GitHub issue" },
  { name: "create_issue", description: "Open a GitHub issue" },
];

test("select: picks exact names, in the order asked, ignoring unknown ones", () => {
  assert.deepEqual(searchCatalog(catalog, "select:list_directory, read_text_file,nope"), [
    "list_directory",
    "read_text_file",
  ]);
});

test("keywords rank name matches above description matches; +word requires the word in the name", () => {
  assert.deepEqual(searchCatalog(catalog, "issue"), ["get_issue", "create_issue"]);
  assert.deepEqual(searchCatalog(catalog, "files")[0], "search_files");
  assert.deepEqual(searchCatalog(catalog, "+issue open"), ["create_issue", "get_issue"]);
  assert.deepEqual(searchCatalog(catalog, "read.*file"), ["read_text_file"]);
  assert.deepEqual(searchCatalog(catalog, "weather"), []);
  assert.deepEqual(searchCatalog(catalog, "(unclosed"), []);
});

test("promoted_tools merge is a union in first-promotion order and idempotent", () => {
  assert.deepEqual(mergePromotedTools(["a"], ["b", "a"]), ["a", "b"]);
  assert.deepEqual(mergePromotedTools(["a", "b"], ["a", "b"]), ["a", "b"]);
  assert.deepEqual(mergePromotedTools(undefined, null), []);
});

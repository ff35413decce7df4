import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../errors.js";
import { memoryPath } from "./memory-path.js";

test("the default agent uses {home}/memory.json; a named agent its own lower-cased directory", () => {
  assert.equal(memoryPath("/h"), path.join("/h", "memory.json"));
  assert.equal(memoryPath("/h", ""), path.join("/h", "memory.json"));
  assert.equal(memoryPath("/h", "Research-Bot2"), path.join("/h", "agents", "research-bot2", "memory.json"));
  assert.notEqual(memoryPath("/h", "writer"), memoryPath("/h", "reviewer"));
});

test("agent names that could escape the home directory or are not plain are refused", () => {
  for (const name of ["../etc", "a/b", "a b", ".", "x_y", "名前"]) {
    assert.throws(
      () => memoryPath("/h", name),
      (error: unknown) => error instanceof ConfigError && error.message.includes(`"${name}"`),
      name,
    );
  }
});

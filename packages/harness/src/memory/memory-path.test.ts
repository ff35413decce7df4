import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "../errors.js";
import { memoryPath, memoryUserRoot, normaliseUserId } from "./memory-path.js";

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

test("a user's memory lives under {root}/users/{id}, with the same per-agent layout; no id is the local user", () => {
  assert.equal(memoryPath("/h", undefined, undefined), path.join("/h", "memory.json"));
  assert.equal(memoryPath("/h", undefined, "ann"), path.join("/h", "users", "ann", "memory.json"));
  assert.equal(
    memoryPath("/h", "Researcher", "Ann_2-x"),
    path.join("/h", "users", "Ann_2-x", "agents", "researcher", "memory.json"),
    "ids keep their case: two users never share a directory",
  );
  assert.equal(memoryUserRoot("/h", null), "/h");
  assert.equal(normaliseUserId("u".repeat(64)), "u".repeat(64));
});

test("user ids that could escape the root, are empty, too long or not plain are refused", () => {
  for (const id of ["", "..", "../ann", "a/b", "a b", "a.b", "ann\u0000", "名前", "u".repeat(65)]) {
    assert.throws(
      () => memoryPath("/h", undefined, id),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(`User id "${id}" is not valid`) &&
        /1 to 64/.test(error.message),
      JSON.stringify(id),
    );
  }
});

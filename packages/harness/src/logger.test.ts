import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "./logger.js";

test("a logger writes lines at or above its level, with the scope", () => {
  const lines: string[] = [];
  const logger = createLogger({ level: "info", write: (line) => lines.push(line) });
  logger.child("title").debug("hidden");
  logger.child("memory").info("updated");
  createLogger({ level: "warning", write: (line) => lines.push(line) }).info("hidden too");
  createLogger({ level: "warning", write: (line) => lines.push(line) }).warn("shown");
  assert.deepEqual(lines, ["[deerflow] info memory: updated", "[deerflow] warn shown"]);
});

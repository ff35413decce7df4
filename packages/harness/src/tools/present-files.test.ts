import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createTestSandbox } from "../testing/sandbox.js";

test("present_files turns files under outputs into artifacts (virtual paths, no duplicates)", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.outputs_path, "report.md"), "# r");
  fs.writeFileSync(path.join(kit.sandbox.paths.outputs_path, "data.csv"), "a,b");
  const result = await kit.call("present_files", {
    filepaths: ["/mnt/user-data/outputs/report.md", "data.csv", "/mnt/user-data/outputs/./report.md"],
  });
  assert.ok(result instanceof Command);
  const update = result.update as { artifacts: string[]; messages: ToolMessage[] };
  assert.deepEqual(update.artifacts, ["/mnt/user-data/outputs/report.md", "/mnt/user-data/outputs/data.csv"]);
  assert.match(String(update.messages[0]!.content), /^Successfully presented files: report\.md, data\.csv$/);
  assert.ok(update.messages[0]!.tool_call_id.startsWith("call-"));
});

test("present_files refuses anything outside outputs, and missing files, and presents nothing then", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.workspace_path, "draft.md"), "d");
  fs.writeFileSync(path.join(kit.sandbox.paths.outputs_path, "ok.md"), "o");
  fs.symlinkSync(
    path.join(kit.sandbox.paths.workspace_path, "draft.md"),
    path.join(kit.sandbox.paths.outputs_path, "sneaky.md"),
  );
  const cases: Array<[string, RegExp]> = [
    [
      "/mnt/user-data/workspace/draft.md",
      /Only files in \/mnt\/user-data\/outputs can be presented: \/mnt\/user-data\/workspace\/draft\.md/,
    ],
    ["/mnt/user-data/outputs/missing.md", /File not found: \/mnt\/user-data\/outputs\/missing\.md/],
    ["/mnt/user-data/outputs/sneaky.md", /Only files in \/mnt\/user-data\/outputs can be presented/],
    ["/mnt/user-data/outputs", /Only files in/],
  ];
  for (const [bad, pattern] of cases) {
    const result = await kit.call("present_files", { filepaths: ["/mnt/user-data/outputs/ok.md", bad] });
    assert.ok(ToolMessage.isInstance(result), bad);
    assert.match(String(result.content), pattern);
    assert.match(String(result.content), /Nothing was presented/);
  }
});

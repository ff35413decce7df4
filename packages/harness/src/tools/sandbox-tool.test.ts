import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { createTestSandbox } from "../testing/sandbox.js";
import { sandboxTool, toolFailure } from "./sandbox-tool.js";

const call = (id: string, args: Record<string, unknown>) => ({ name: "probe", args, id, type: "tool_call" as const });

test("sandboxTool turns a failure into one error ToolMessage and masks host paths unless verbatim", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const host = kit.sandbox.paths.workspace_path;
  const probe = sandboxTool({
    name: "probe",
    description: "test tool",
    schema: z.object({ mode: z.string() }),
    provider: kit.provider,
    run: async ({ mode }) => {
      if (mode === "ok") return "fine";
      if (mode === "fail") return toolFailure(`nothing at ${host}/x`);
      if (mode === "verbatim") return toolFailure(`nothing at ${host}/x`, { verbatim: true });
      throw new Error(`boom in ${host}`);
    },
  });
  const config = { configurable: { thread_id: kit.threadId }, toolCallId: "c1" } as never;
  const ok = (await probe.invoke(call("c1", { mode: "ok" }), config)) as ToolMessage;
  assert.equal(ok.content, "fine");
  assert.notEqual(ok.status, "error");

  const failed = (await probe.invoke(call("c1", { mode: "fail" }), config)) as ToolMessage;
  assert.equal(failed.content, "Error: nothing at /mnt/user-data/workspace/x");
  assert.equal(failed.status, "error");
  assert.equal(failed.tool_call_id, "c1");

  const verbatim = (await probe.invoke(call("c1", { mode: "verbatim" }), config)) as ToolMessage;
  assert.equal(verbatim.content, `Error: nothing at ${host}/x`);

  const thrown = (await probe.invoke(call("c1", { mode: "throw" }), config)) as ToolMessage;
  assert.equal(thrown.content, "Error: probe failed: boom in /mnt/user-data/workspace");
  assert.equal(thrown.status, "error");

  const noThread = (await probe.invoke(call("c2", { mode: "ok" }), { toolCallId: "c2" } as never)) as ToolMessage;
  assert.equal(
    noThread.content,
    "Error: this run has no thread id (configurable.thread_id), so there is no sandbox to use.",
  );
  assert.equal(noThread.status, "error");
});

test("sandbox tool failures carry status error with the text the model always saw; results do not", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.workspace_path, "a.txt"), "hello\n");
  const missing = (await kit.call("read_file", {
    description: "r",
    path: "/mnt/user-data/workspace/none.txt",
  })) as ToolMessage;
  assert.equal(missing.content, "Error: File not found: /mnt/user-data/workspace/none.txt");
  assert.equal(missing.status, "error");
  const denied = (await kit.call("ls", { description: "l", path: "/etc" })) as ToolMessage;
  assert.match(String(denied.content), /^Error: Access denied/);
  assert.equal(denied.status, "error");
  const read = (await kit.call("read_file", {
    description: "r",
    path: "/mnt/user-data/workspace/a.txt",
  })) as ToolMessage;
  assert.equal(read.content, "hello\n");
  assert.notEqual(read.status, "error");
});

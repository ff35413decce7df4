import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { threadDataMiddleware } from "./thread-data.js";
import { createTestSandbox } from "../testing/sandbox.js";
import { ThreadStateSchema } from "../state/thread-state.js";
import { ScriptedChatModel } from "../testing/scripted-model.js";
import {
  VIEW_IMAGE_CONTEXT_KEY,
  buildViewedImagesMessage,
  imagesAwaitingView,
  policyImageLoader,
  viewImageMiddleware,
} from "./view-image.js";
import { inspectImage } from "../tools/view-image.js";
import { PathPolicy } from "../sandbox/path-policy.js";

const PNG_1X1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

const viewCall = (id: string) => ({
  id,
  name: "view_image",
  args: { image_path: "/x.png" },
  type: "tool_call" as const,
});
const result = (id: string) => new ToolMessage({ content: "ok", tool_call_id: id });

test("imagesAwaitingView: only when every call of the last AI message has its result", () => {
  const ai = new AIMessage({ content: "", tool_calls: [viewCall("v1"), { ...viewCall("b1"), name: "bash" }] });
  assert.equal(imagesAwaitingView([ai, result("v1")]), false, "bash still running");
  assert.equal(imagesAwaitingView([ai, result("v1"), result("b1")]), true);
  assert.equal(imagesAwaitingView([ai, result("v1"), result("b1"), new HumanMessage("next")]), false);
  assert.equal(
    imagesAwaitingView([
      new AIMessage({ content: "", tool_calls: [{ ...viewCall("b2"), name: "bash" }] }),
      result("b2"),
    ]),
    false,
  );
  assert.equal(imagesAwaitingView([new AIMessage("plain answer")]), false);
});

test("buildViewedImagesMessage: one hidden human message with a text line and a data URL per image", async () => {
  const message = await buildViewedImagesMessage(
    {
      "/mnt/user-data/uploads/a.png": { mime_type: "image/png", size: 3, actual_path: "/h/a.png" },
      "/mnt/user-data/uploads/gone.png": { mime_type: "image/png", size: 3, actual_path: "/h/gone.png" },
    },
    async (virtualPath) =>
      virtualPath.endsWith("a.png") ? { mimeType: "image/png", base64: "QUJD" } : { error: "Image file not found: x" },
  );
  assert.ok(message.id?.startsWith("view-image-context:"));
  assert.equal(message.additional_kwargs[VIEW_IMAGE_CONTEXT_KEY], true);
  assert.equal(message.additional_kwargs.hide_from_ui, true);
  assert.deepEqual(message.content, [
    { type: "text", text: "Here are the images you've viewed:" },
    { type: "text", text: "\n- **/mnt/user-data/uploads/a.png** (image/png)" },
    { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } },
    { type: "text", text: "\n- **/mnt/user-data/uploads/gone.png**: could not be shown (Image file not found: x)" },
  ]);
});

function imageBlocks(messages: BaseMessage[]): string[] {
  return messages.flatMap((message) =>
    Array.isArray(message.content)
      ? message.content
          .filter((block) => (block as { type?: string }).type === "image_url")
          .map((block) => (block as unknown as { image_url: { url: string } }).image_url.url)
      : [],
  );
}

test("in an agent run the image is shown once, after view_image, and never stored", async (t) => {
  const kit = createTestSandbox({ threadId: "vision-thread", vision: true });
  t.after(() => kit.cleanup());
  fs.writeFileSync(path.join(kit.sandbox.paths.uploads_path, "dot.png"), PNG_1X1);
  const model = new ScriptedChatModel([
    { tool_calls: [{ name: "view_image", args: { image_path: "/mnt/user-data/uploads/dot.png" } }] },
    { tool_calls: [{ name: "ls", args: { description: "l", path: "/mnt/user-data/uploads" } }] },
    { content: "a single dot" },
  ]);
  const agent = createAgent({
    model,
    tools: kit.tools,
    stateSchema: ThreadStateSchema,
    middleware: [threadDataMiddleware({ home: kit.home }), viewImageMiddleware({ home: kit.home })],
    checkpointer: new MemorySaver(),
  });
  const config = { configurable: { thread_id: "vision-thread" } };
  const output = await agent.invoke(
    { messages: [new HumanMessage({ id: "vi-h1", content: "what is in the picture?" })] },
    config,
  );
  model.assertDone();
  assert.deepEqual(imageBlocks(model.calls[0]!.messages), []);
  assert.deepEqual(
    imageBlocks(model.calls[1]!.messages),
    [`data:image/png;base64,${PNG_1X1.toString("base64")}`],
    "shown right after view_image",
  );
  assert.deepEqual(imageBlocks(model.calls[2]!.messages), [], "and only once");
  assert.deepEqual(output.viewed_images, {}, "cleared after it was shown");
  const stored = JSON.stringify((await agent.graph.getState(config)).values);
  assert.ok(!stored.includes(PNG_1X1.toString("base64")), "no image bytes in the checkpoint");
});

test("an image whose size changed since view_image read it is not sent to the model", async (t) => {
  const kit = createTestSandbox({ threadId: "vision-resized", vision: true });
  t.after(() => kit.cleanup());
  const file = path.join(kit.sandbox.paths.uploads_path, "dot.png");
  fs.writeFileSync(file, PNG_1X1);
  const policy = new PathPolicy({ userDataDir: path.dirname(kit.sandbox.paths.workspace_path) });
  const viewed = await inspectImage(policy, "/mnt/user-data/uploads/dot.png");
  assert.ok(!("error" in viewed));
  const load = policyImageLoader(policy, 1024 * 1024);
  assert.ok("base64" in (await load("/mnt/user-data/uploads/dot.png", viewed.image)), "unchanged: shown");

  fs.appendFileSync(file, Buffer.alloc(64));
  const loaded = await load("/mnt/user-data/uploads/dot.png", viewed.image);
  assert.ok("error" in loaded, "the grown file is not read");
  assert.match(loaded.error, /changed since view_image/);
  const message = await buildViewedImagesMessage({ "/mnt/user-data/uploads/dot.png": viewed.image }, load);
  assert.deepEqual(imageBlocks([message]), []);
});

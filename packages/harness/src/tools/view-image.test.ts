import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createTestSandbox } from "../testing/sandbox.js";
import { isViewableLocation } from "./view-image.js";

const PNG_1X1 = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
  "hex",
);

test("isViewableLocation: workspace, uploads and outputs only", () => {
  assert.equal(isViewableLocation("/mnt/user-data/uploads/a.png"), true);
  assert.equal(isViewableLocation("/mnt/skills/a.png"), false);
  assert.equal(isViewableLocation("/mnt/user-data/outputs"), false);
});

test("view_image records path, MIME type and size (never bytes) in viewed_images", async (t) => {
  const kit = createTestSandbox({ vision: true });
  t.after(() => kit.cleanup());
  const host = path.join(kit.sandbox.paths.uploads_path, "dot.png");
  fs.writeFileSync(host, PNG_1X1);
  const result = await kit.call("view_image", { image_path: "/mnt/user-data/uploads/dot.png" });
  assert.ok(result instanceof Command);
  const update = result.update as { viewed_images: Record<string, unknown>; messages: ToolMessage[] };
  assert.deepEqual(update.viewed_images, {
    "/mnt/user-data/uploads/dot.png": { mime_type: "image/png", size: PNG_1X1.length, actual_path: host },
  });
  assert.equal(update.messages[0]!.content, "Successfully read image");
  assert.ok(!JSON.stringify(update).includes(PNG_1X1.toString("base64")), "no image bytes in the update");
});

test("view_image refuses missing, oversized, mislabelled and misplaced images", async (t) => {
  const kit = createTestSandbox({ vision: true, skills: { "public/x/pic.png": PNG_1X1.toString("latin1") } });
  t.after(() => kit.cleanup());
  const ws = kit.sandbox.paths.workspace_path;
  fs.writeFileSync(path.join(ws, "fake.png"), "not an image");
  fs.writeFileSync(path.join(ws, "real.jpg"), PNG_1X1);
  fs.writeFileSync(path.join(ws, "pic.svg"), "<svg/>");
  const view = (image_path: string) => kit.text("view_image", { image_path });
  assert.equal(
    await view("/mnt/user-data/workspace/none.png"),
    "Error: Image file not found: /mnt/user-data/workspace/none.png",
  );
  assert.match(
    await view("/mnt/user-data/workspace/fake.png"),
    /^Error: File contents do not match a supported image format/,
  );
  assert.match(
    await view("/mnt/user-data/workspace/real.jpg"),
    /^Error: Image contents are PNG, but file extension indicates JPEG/,
  );
  assert.match(await view("/mnt/user-data/workspace/pic.svg"), /^Error: Unsupported image format/);
  assert.match(
    await view("/mnt/skills/public/x/pic.png"),
    /^Error: Only images in \/mnt\/user-data\/workspace, uploads or outputs/,
  );
  fs.writeFileSync(path.join(ws, "big.png"), Buffer.concat([PNG_1X1, Buffer.alloc(20 * 1024 * 1024)]));
  assert.match(await view("/mnt/user-data/workspace/big.png"), /^Error: Image file is too large/);
});

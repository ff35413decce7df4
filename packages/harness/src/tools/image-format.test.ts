import { test } from "node:test";
import assert from "node:assert/strict";
import { checkImage, formatFromExtension, formatFromMagic } from "./image-format.js";
import type { ToolFailure } from "./sandbox-tool.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
const GIF = Buffer.from("GIF89a......");
const WEBP = Buffer.from("RIFF\0\0\0\0WEBP");

test("formats by extension and by magic bytes", () => {
  assert.equal(formatFromExtension("a.JPG")?.mimeType, "image/jpeg");
  assert.equal(formatFromExtension("a.svg"), undefined);
  assert.deepEqual(
    [PNG, JPEG, GIF, WEBP].map((bytes) => formatFromMagic(bytes)?.name),
    ["png", "jpeg", "gif", "webp"],
  );
  assert.equal(formatFromMagic(Buffer.from("hello")), undefined);
});

test("checkImage requires extension and content to agree", () => {
  assert.equal((checkImage("/p/a.png", PNG) as { mimeType: string }).mimeType, "image/png");
  assert.match((checkImage("/p/a.svg", PNG) as ToolFailure).error, /^Unsupported image format/);
  assert.match(
    (checkImage("/p/a.png", Buffer.from("text")) as ToolFailure).error,
    /^File contents do not match a supported image format/,
  );
  assert.equal(
    (checkImage("/p/a.png", JPEG) as ToolFailure).error,
    "Image contents are JPEG, but file extension indicates PNG: /p/a.png",
  );
});

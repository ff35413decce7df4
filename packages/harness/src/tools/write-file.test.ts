import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createTestSandbox } from "../testing/sandbox.js";
import { writeSizeError } from "./write-file.js";

test("writeSizeError enforces the cap on whole writes only", () => {
  assert.equal(writeSizeError("abc", false, 3), null);
  assert.match(
    writeSizeError("abcd", false, 3) ?? "",
    /^write_file content is 4 bytes, over the 3-byte limit for one write\. .*append: true/,
  );
  assert.equal(writeSizeError("abcd", true, 3), null);
  assert.equal(writeSizeError("abcd", false, 0), null, "0 disables the cap");
  assert.match(writeSizeError("éé", false, 3) ?? "", /4 bytes/, "counted in UTF-8 bytes");
});

test("write_file creates parents, overwrites, appends, and refuses oversized payloads", async (t) => {
  const kit = createTestSandbox({ limits: { writeFileMaxBytes: 10 } });
  t.after(() => kit.cleanup());
  const host = path.join(kit.sandbox.paths.outputs_path, "deep/dir/a.txt");
  assert.equal(
    await kit.text("write_file", { description: "w", path: "/mnt/user-data/outputs/deep/dir/a.txt", content: "first" }),
    "OK",
  );
  assert.equal(fs.readFileSync(host, "utf8"), "first");
  assert.equal(
    await kit.text("write_file", { description: "w", path: "/mnt/user-data/outputs/deep/dir/a.txt", content: "2nd" }),
    "OK",
  );
  assert.equal(fs.readFileSync(host, "utf8"), "2nd", "overwrite replaces the whole file");
  assert.equal(
    await kit.text("write_file", {
      description: "w",
      path: "/mnt/user-data/outputs/deep/dir/a.txt",
      content: " and more than ten",
      append: true,
    }),
    "OK",
  );
  assert.equal(fs.readFileSync(host, "utf8"), "2nd and more than ten");
  assert.match(
    await kit.text("write_file", { description: "w", path: "/mnt/user-data/outputs/big.txt", content: "x".repeat(11) }),
    /over the 10-byte limit/,
  );
  assert.equal(fs.existsSync(path.join(kit.sandbox.paths.outputs_path, "big.txt")), false);
  assert.match(
    await kit.text("write_file", { description: "w", path: "/mnt/user-data/outputs/deep", content: "x" }),
    /is a directory/,
  );
});

test("parallel writes to one file do not interleave", async (t) => {
  const kit = createTestSandbox();
  t.after(() => kit.cleanup());
  const chunks = Array.from({ length: 20 }, (_, i) => `${String(i).padStart(2, "0")}${"-".repeat(2000)}\n`);
  await Promise.all(
    chunks.map((content) => kit.text("write_file", { description: "w", path: "log.txt", content, append: true })),
  );
  const lines = fs.readFileSync(path.join(kit.sandbox.paths.workspace_path, "log.txt"), "utf8").trimEnd().split("\n");
  assert.equal(lines.length, 20);
  assert.ok(lines.every((line) => /^\d\d-{2000}$/.test(line)));
});

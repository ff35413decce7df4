import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { HarnessError } from "../errors.js";
import { saveUploads } from "./save-uploads.js";
import { tempHome } from "../testing/temp-home.js";

function setup(t: { after: (fn: () => void) => void }) {
  const root = tempHome(t, { prefix: "uploads-test-" });
  const home = path.join(root, "home");
  const src = path.join(root, "src");
  fs.mkdirSync(src);
  const file = (name: string, content: string | Buffer) => {
    fs.writeFileSync(path.join(src, name), content);
    return path.join(src, name);
  };
  const uploads = path.join(home, "threads", "t1", "user-data", "uploads");
  return { home, file, uploads };
}

const isRejection = (pattern: RegExp) => (error: unknown) =>
  error instanceof HarnessError && error.code === "upload_rejected" && pattern.test(error.message);

test("files are copied into the thread's uploads with their virtual paths", async (t) => {
  const s = setup(t);
  const stored = await saveUploads(s.home, "t1", [
    s.file("notes.txt", "hello"),
    { path: s.file("raw.bin", "xy"), name: "data.csv" },
  ]);
  assert.deepEqual(stored, [
    {
      filename: "notes.txt",
      size: 5,
      path: path.join(s.uploads, "notes.txt"),
      virtual_path: "/mnt/user-data/uploads/notes.txt",
    },
    {
      filename: "data.csv",
      size: 2,
      path: path.join(s.uploads, "data.csv"),
      virtual_path: "/mnt/user-data/uploads/data.csv",
    },
  ]);
  assert.equal(fs.readFileSync(path.join(s.uploads, "notes.txt"), "utf8"), "hello");
  assert.deepEqual(fs.readdirSync(s.uploads).sort(), ["data.csv", "notes.txt"], "no staging files left");
});

test("a name already taken gets _1, _2 instead of overwriting", async (t) => {
  const s = setup(t);
  const source = s.file("a.txt", "one");
  await saveUploads(s.home, "t1", [source]);
  fs.writeFileSync(source, "two");
  const [second] = await saveUploads(s.home, "t1", [source]);
  const [third, fourth] = await saveUploads(s.home, "t1", [source, source]);
  assert.deepEqual([second!.filename, third!.filename, fourth!.filename], ["a_1.txt", "a_2.txt", "a_3.txt"]);
  assert.equal(fs.readFileSync(path.join(s.uploads, "a.txt"), "utf8"), "one", "the first upload is untouched");
});

test("bad names, missing files and oversized files are refused and nothing is copied", async (t) => {
  const s = setup(t);
  const good = s.file("good.txt", "ok");
  await assert.rejects(
    saveUploads(s.home, "t1", [good, { path: good, name: "../../x" }]),
    isRejection(/Upload refused: the file name "..\/..\/x" contains a path separator/),
  );
  await assert.rejects(saveUploads(s.home, "t1", [{ path: good, name: "" }]), isRejection(/the file name is empty/));
  await assert.rejects(
    saveUploads(s.home, "t1", [path.join(path.dirname(good), "missing.txt")]),
    isRejection(/does not exist/),
  );
  await assert.rejects(saveUploads(s.home, "t1", [path.dirname(good)]), isRejection(/is not a regular file/));
  await assert.rejects(
    saveUploads(s.home, "t1", [s.file("big.bin", Buffer.alloc(11))], { maxFileSize: 10 }),
    isRejection(/big\.bin is 11 bytes, over the limit of 10 bytes per file/),
  );
  await assert.rejects(saveUploads(s.home, "t1", [good, good], { maxTotalSize: 3 }), isRejection(/more than 3 bytes/));
  await assert.rejects(saveUploads(s.home, "t1", [good, good], { maxFiles: 1 }), isRejection(/at most 1 per upload/));
  await assert.rejects(saveUploads(s.home, "../t1", [good]), /Thread id/);
  assert.deepEqual(fs.existsSync(s.uploads) ? fs.readdirSync(s.uploads) : [], [], "all or nothing");
});

test("an uploads directory replaced by a link to the outside is not written through", async (t) => {
  const s = setup(t);
  const good = s.file("good.txt", "ok");
  await saveUploads(s.home, "t1", [good]);
  const elsewhere = path.join(path.dirname(s.home), "elsewhere");
  fs.mkdirSync(elsewhere);
  fs.rmSync(s.uploads, { recursive: true });
  fs.symlinkSync(elsewhere, s.uploads);
  await assert.rejects(saveUploads(s.home, "t1", [good]), isRejection(/outside/));
  assert.deepEqual(fs.readdirSync(elsewhere), []);
});

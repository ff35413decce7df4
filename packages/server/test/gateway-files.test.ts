/**
 * Gateway uploads and artifacts over real HTTP: multipart uploads with the CLI's naming and limits,
 * list/delete, artifact content types, download, active content, ranges, edits with a sha256
 * precondition, hostile paths, and an upload that a run reads and turns into an artifact.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { test } from "node:test";
import { collect, startTestServer, type TestServer } from "./helpers.js";

function form(files: Array<[string, string | Uint8Array]>): FormData {
  const body = new FormData();
  for (const [name, content] of files) body.append("files", new Blob([content]), name);
  return body;
}

async function upload(
  t: TestServer,
  threadId: string,
  files: Array<[string, string | Uint8Array]>,
  prefix = "/api",
): Promise<Response> {
  return fetch(`${t.url}${prefix}/threads/${threadId}/uploads`, { method: "POST", body: form(files) });
}

function outputs(t: TestServer, threadId: string): string {
  const dir = path.join(t.home.path, "threads", threadId, "user-data", "outputs");
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Status of a multipart POST of `bytes` bytes, read even if the server closes before the body is sent. */
function rawPostStatus(url: string, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=b", "content-length": String(bytes) },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    request.on("error", reject);
    request.write(Buffer.alloc(64 * 1024));
  });
}

const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

test("uploads: multipart files land in the thread with safe names, no overwrite, limits, list and delete", async () => {
  const t = await startTestServer({ yaml: "uploads: {max_files: 3, max_file_size: 1000, max_total_size: 1500}" });
  try {
    const first = await upload(t, "t-up", [
      ["notes.txt", "hello"],
      ["a;b.md", "# x"],
    ]);
    assert.equal(first.status, 200);
    const body = (await first.json()) as {
      success: boolean;
      files: Array<Record<string, unknown>>;
      skipped_files: unknown[];
    };
    assert.equal(body.success, true);
    assert.deepEqual(
      body.files.map((file) => [file.filename, file.size, file.virtual_path, file.artifact_url]),
      [
        [
          "notes.txt",
          5,
          "/mnt/user-data/uploads/notes.txt",
          "/api/threads/t-up/artifacts/mnt/user-data/uploads/notes.txt",
        ],
        ["a_b.md", 3, "/mnt/user-data/uploads/a_b.md", "/api/threads/t-up/artifacts/mnt/user-data/uploads/a_b.md"],
      ],
    );
    assert.ok(!JSON.stringify(body).includes(t.home.path), "host paths are never shown");

    const again = (await (await upload(t, "t-up", [["notes.txt", "second"]])).json()) as {
      files: Array<{ filename: string }>;
    };
    assert.equal(again.files[0]!.filename, "notes_1.txt", "a taken name is never overwritten");
    const uploads = path.join(t.home.path, "threads", "t-up", "user-data", "uploads");
    assert.equal(fs.readFileSync(path.join(uploads, "notes.txt"), "utf8"), "hello");

    const skipped = (await (
      await upload(t, "t-up", [
        ["..", "x"],
        ["ok.txt", "y"],
      ])
    ).json()) as { files: Array<{ filename: string }>; skipped_files: Array<{ filename: string }> };
    assert.deepEqual(
      skipped.files.map((f) => f.filename),
      ["ok.txt"],
    );
    assert.deepEqual(
      skipped.skipped_files.map((f) => f.filename),
      [".."],
    );

    const tooBig = await upload(t, "t-up", [["big.bin", new Uint8Array(1001)]]);
    assert.equal(tooBig.status, 413);
    assert.match(
      ((await tooBig.json()) as { detail: string }).detail,
      /big\.bin is 1001 bytes, over the limit of 1000/,
    );
    assert.equal(
      (
        await upload(t, "t-up", [
          ["a", "1"],
          ["b", "2"],
          ["c", "3"],
          ["d", "4"],
        ])
      ).status,
      413,
    );
    assert.equal(
      (
        await upload(t, "t-up", [
          ["a", new Uint8Array(800)],
          ["b", new Uint8Array(800)],
        ])
      ).status,
      413,
    );
    assert.equal(
      await rawPostStatus(`${t.url}/api/threads/t-up/uploads`, 3 * 1024 * 1024),
      413,
      "a body over the total limit is refused before it is read",
    );
    assert.equal((await upload(t, "bad..id", [["x.txt", "1"]])).status, 422);
    assert.equal(
      (
        await fetch(`${t.url}/api/threads/t-up/uploads`, {
          method: "POST",
          body: "not multipart",
          headers: { "content-type": "multipart/form-data; boundary=zz" },
        })
      ).status,
      422,
    );

    const limits = await (await fetch(`${t.url}/api/threads/t-up/uploads/limits`)).json();
    assert.deepEqual(limits, { max_files: 3, max_file_size: 1000, max_total_size: 1500 });
    const list = (await (await fetch(`${t.url}/api/threads/t-up/uploads/list`)).json()) as {
      files: Array<{ filename: string }>;
      count: number;
    };
    assert.deepEqual(
      list.files.map((f) => f.filename),
      ["a_b.md", "notes.txt", "notes_1.txt", "ok.txt"],
    );
    assert.equal(list.count, 4);
    assert.deepEqual(await (await fetch(`${t.url}/api/threads/nothing-here/uploads/list`)).json(), {
      files: [],
      count: 0,
    });

    assert.equal((await fetch(`${t.url}/api/threads/t-up/uploads/notes_1.txt`, { method: "DELETE" })).status, 200);
    assert.equal(fs.existsSync(path.join(uploads, "notes_1.txt")), false);
    assert.equal((await fetch(`${t.url}/api/threads/t-up/uploads/notes_1.txt`, { method: "DELETE" })).status, 404);
    assert.equal((await fetch(`${t.url}/api/threads/t-up/uploads/..%2Foutputs%2Fx`, { method: "DELETE" })).status, 422);
  } finally {
    await t.close();
  }
});

test("artifacts: content types, download, active content as attachment, ranges, ETag", async () => {
  const t = await startTestServer();
  try {
    const dir = outputs(t, "t-art");
    fs.writeFileSync(path.join(dir, "report.md"), "# Report\nbody\n");
    fs.writeFileSync(path.join(dir, "page.html"), "<script>alert(1)</script>");
    fs.writeFileSync(path.join(dir, "pic.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
    fs.writeFileSync(path.join(dir, "blob"), Buffer.from([1, 0, 2, 3]));
    fs.writeFileSync(path.join(dir, "empty.txt"), "");
    fs.writeFileSync(path.join(dir, "naïve name.txt"), "x");
    const get = (p: string, init?: RequestInit) => fetch(`${t.url}/api/threads/t-art/artifacts/${p}`, init);

    const md = await get("mnt/user-data/outputs/report.md");
    assert.equal(md.status, 200);
    assert.equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
    assert.match(md.headers.get("content-disposition")!, /^inline;/);
    assert.equal(md.headers.get("x-content-type-options"), "nosniff");
    assert.equal(md.headers.get("etag"), `"${sha("# Report\nbody\n")}"`);
    assert.equal(await md.text(), "# Report\nbody\n");
    assert.equal(
      (await fetch(`${t.url}/threads/t-art/artifacts/mnt/user-data/outputs/report.md`)).status,
      200,
      "also at /",
    );

    const download = await get("mnt/user-data/outputs/report.md?download=true");
    assert.match(download.headers.get("content-disposition")!, /^attachment; filename="report.md"/);
    for (const [file, type] of [
      ["page.html", "text/html"],
      ["pic.svg", "image/svg+xml"],
    ] as const) {
      const active = await get(`mnt/user-data/outputs/${file}`);
      assert.ok(active.headers.get("content-type")!.startsWith(type));
      assert.match(active.headers.get("content-disposition")!, /^attachment;/, `${file} is never inline`);
    }
    const binary = await get("mnt/user-data/outputs/blob");
    assert.equal(binary.headers.get("content-type"), "application/octet-stream");
    assert.match(
      (await get("mnt/user-data/outputs/na%C3%AFve%20name.txt")).headers.get("content-disposition")!,
      /filename\*=UTF-8''na%C3%AFve%20name\.txt/,
    );

    const ranged = await get("mnt/user-data/outputs/report.md", { headers: { range: "bytes=0-3" } });
    assert.equal(ranged.status, 206);
    assert.equal(ranged.headers.get("content-range"), "bytes 0-3/14");
    assert.equal(await ranged.text(), "# Re");
    const suffix = await get("mnt/user-data/outputs/report.md", { headers: { range: "bytes=-5" } });
    assert.equal(await suffix.text(), "body\n");
    const beyond = await get("mnt/user-data/outputs/report.md", { headers: { range: "bytes=0-1048575" } });
    assert.equal(beyond.status, 206, "the UI's preview range on a small file");
    assert.equal(beyond.headers.get("content-range"), "bytes 0-13/14");
    const unsatisfiable = await get("mnt/user-data/outputs/report.md", { headers: { range: "bytes=100-" } });
    assert.equal(unsatisfiable.status, 416);
    assert.equal(unsatisfiable.headers.get("content-range"), "bytes */14");
    const empty = await get("mnt/user-data/outputs/empty.txt", { headers: { range: "bytes=0-1048575" } });
    assert.equal(empty.status, 416);
    assert.equal(empty.headers.get("content-range"), "bytes */0", "DeerFlow's UI reads this as an empty file");

    assert.equal((await get("mnt/user-data/outputs/missing.md")).status, 404);
    assert.equal((await get("mnt/user-data/outputs")).status, 400, "a directory is not a file");
  } finally {
    await t.close();
  }
});

test("artifacts: hostile paths never reach outside the thread", async () => {
  const t = await startTestServer();
  try {
    const dir = outputs(t, "t-evil");
    outputs(t, "t-other");
    fs.writeFileSync(
      path.join(t.home.path, "threads", "t-other", "user-data", "outputs", "secret.txt"),
      "other thread",
    );
    const outside = path.join(t.home.path, "outside.txt");
    fs.writeFileSync(outside, "host secret");
    fs.symlinkSync(outside, path.join(dir, "link.txt"));
    fs.symlinkSync(path.join(t.home.path, "threads", "t-other"), path.join(dir, "dirlink"));
    const get = (p: string) => fetch(`${t.url}/api/threads/t-evil/artifacts/${p}`);
    const cases: Array<[string, number[]]> = [
      ["mnt/user-data/outputs/..%2F..%2F..%2F..%2Foutside.txt", [403]],
      ["mnt/user-data/outputs/%2e%2e%2f%2e%2e%2f%2e%2e%2fouts", [403]],
      ["mnt/user-data/%2E%2E/%2E%2E/t-other/user-data/outputs/secret.txt", [403, 404]],
      ["%2Fetc%2Fpasswd", [403]],
      [encodeURIComponent(outside), [403]],
      ["mnt/user-data/outputs/link.txt", [403]],
      ["mnt/user-data/outputs/dirlink/user-data/outputs/secret.txt", [403]],
      ["mnt/user-data/outputs/report.md%00.txt", [400, 403]],
      ["mnt/skills/public/x", [400, 403]],
      ["mnt/user-data/outputs/%ZZ", [400]],
    ];
    for (const [p, statuses] of cases) {
      const response = await get(p);
      const text = await response.text();
      assert.ok(statuses.includes(response.status), `${p}: got ${response.status} ${text}`);
      assert.ok(!text.includes("host secret") && !text.includes("other thread"), `${p} leaked a file`);
      assert.match(text, /"detail"/);
    }
    assert.equal((await fetch(`${t.url}/api/threads/..%2F..%2Fetc/artifacts/mnt/user-data/outputs/x`)).status, 422);
    const put = await fetch(`${t.url}/api/threads/t-evil/artifacts/mnt/user-data/outputs/link.txt`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: "pwned", expected_sha256: sha("host secret") }),
    });
    assert.ok([403, 415].includes(put.status), `PUT through a link: ${put.status}`);
    assert.equal(fs.readFileSync(outside, "utf8"), "host secret");
  } finally {
    await t.close();
  }
});

test("artifacts: PUT edits an output when the sha256 still matches, 412 when it changed", async () => {
  const t = await startTestServer();
  try {
    const file = path.join(outputs(t, "t-edit"), "draft.md");
    fs.writeFileSync(file, "v1");
    const put = (body: unknown, p = "mnt/user-data/outputs/draft.md") =>
      fetch(`${t.url}/api/threads/t-edit/artifacts/${p}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const ok = await put({ content: "v2 ✓", expected_sha256: sha("v1") });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), {
      path: "/mnt/user-data/outputs/draft.md",
      sha256: sha("v2 ✓"),
      size: Buffer.byteLength("v2 ✓"),
    });
    assert.equal(fs.readFileSync(file, "utf8"), "v2 ✓");
    const stale = await put({ content: "v3", expected_sha256: sha("v1") });
    assert.equal(stale.status, 412);
    assert.match(((await stale.json()) as { detail: string }).detail, /changed since it was opened/);
    assert.equal(fs.readFileSync(file, "utf8"), "v2 ✓", "nothing written on a mismatch");
    assert.equal((await put({ content: "x", expected_sha256: "nothex" })).status, 422);
    assert.equal((await put({ content: "x", expected_sha256: sha("v2 ✓"), extra: 1 })).status, 422);
    assert.equal((await put({ content: "x", expected_sha256: sha("") }, "mnt/user-data/workspace/a.md")).status, 400);
    assert.equal((await put({ content: "x", expected_sha256: sha("") }, "mnt/user-data/outputs/none.md")).status, 404);
    assert.equal((await put({ content: "a\u0000b", expected_sha256: sha("v2 ✓") })).status, 415);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ["draft.md"], "no temp files left");
  } finally {
    await t.close();
  }
});

test("end to end: upload a file, a run reads it and writes an artifact, download the artifact", async () => {
  const t = await startTestServer({
    script: (body) => {
      const tools = body.messages.filter((message) => message.role === "tool");
      if (tools.length === 0)
        return {
          tool_calls: [
            { name: "read_file", arguments: { description: "read upload", path: "/mnt/user-data/uploads/data.csv" } },
          ],
        };
      if (tools.length === 1) {
        const read = String(tools[0]!.content);
        return {
          tool_calls: [
            {
              name: "write_file",
              arguments: {
                description: "write",
                path: "/mnt/user-data/outputs/summary.md",
                content: `rows seen: ${read.includes("alpha,1") ? "alpha" : "none"}`,
              },
            },
          ],
        };
      }
      return { content: "Done: /mnt/user-data/outputs/summary.md" };
    },
  });
  try {
    const thread = await t.client.threads.create();
    const uploaded = (await (await upload(t, thread.thread_id, [["data.csv", "name,n\nalpha,1\n"]])).json()) as {
      files: Array<{ filename: string; size: number; path: string }>;
    };
    const files = uploaded.files.map((file) => ({
      filename: file.filename,
      size: file.size,
      path: file.path,
      status: "uploaded",
    }));
    const parts = await collect(
      t.client.runs.stream(thread.thread_id, "lead_agent", {
        input: { messages: [{ type: "human", content: "Summarize the upload", additional_kwargs: { files } }] },
        streamMode: ["values"],
      }),
    );
    assert.equal(parts.at(-1)!.event, "end");
    const final = parts.filter((part) => part.event === "values").at(-1)!.data as {
      messages: Array<{ content: unknown }>;
    };
    assert.equal(final.messages.at(-1)!.content, "Done: /mnt/user-data/outputs/summary.md");
    const artifact = await fetch(
      `${t.url}/api/threads/${thread.thread_id}/artifacts/mnt/user-data/outputs/summary.md?download=true`,
    );
    assert.equal(artifact.status, 200);
    assert.match(artifact.headers.get("content-disposition")!, /^attachment; filename="summary.md"/);
    assert.equal(await artifact.text(), "rows seen: alpha");
  } finally {
    await t.close();
  }
});

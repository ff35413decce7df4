/**
 * The web app's static files and the artifacts route, over real HTTP: the page loads without an API
 * key, hashed assets are immutable and index.html is revalidated, the SPA fallback answers browser
 * navigations only (an API client asking for /threads/{id} still gets JSON), and artifacts are read
 * through the path policy so nothing outside the thread's user-data can be fetched.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { threadPaths } from "@deerflow/harness";
import { type TestContextLike, tempHome } from "@deerflow/harness/testing";
import { startTestServer } from "./helpers.js";

function fakeBuild(t: TestContextLike): string {
  return tempHome(t, {
    prefix: "deerflow-web-",
    files: {
      "index.html": "<!doctype html><div id=root>deerflow app</div>",
      "assets/index-AbC123.js": "console.log('app')",
      "favicon.svg": "<svg/>",
    },
  });
}

const navigate = { "sec-fetch-mode": "navigate", accept: "text/html,application/xhtml+xml" };

/** A GET with exactly these headers (Node's fetch forces `Sec-Fetch-Mode: cors`, as browsers' fetch does). */
function get(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("the app loads at / and /threads/{id} without a key; assets are immutable; API paths are never shadowed", async (ctx) => {
  const webDir = fakeBuild(ctx);
  const key = "k".repeat(32);
  const t = await startTestServer({ webDir, apiKeys: [key], apiKey: key });
  try {
    for (const page of ["/", "/threads/abc-123", "/settings"]) {
      const response = await get(`${t.url}${page}`, navigate);
      assert.equal(response.status, 200, page);
      assert.match(response.text, /deerflow app/);
      assert.equal(response.headers["cache-control"], "no-cache");
      assert.match(String(response.headers["content-type"]), /text\/html/);
      assert.match(String(response.headers["content-security-policy"]), /script-src 'self'.*frame-ancestors 'none'/);
      // A client without fetch metadata that asks for HTML gets the page too.
      assert.equal((await get(`${t.url}${page}`, { accept: "text/html" })).status, 200);
    }
    const asset = await fetch(`${t.url}/assets/index-AbC123.js`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.match(asset.headers.get("content-type") ?? "", /javascript/);
    assert.equal((await fetch(`${t.url}/assets/nope.js`)).status, 404);
    assert.equal((await fetch(`${t.url}/favicon.svg`)).status, 200);

    // The same paths from an API client (no navigation) reach the API and its key check.
    const api = await fetch(`${t.url}/threads/abc-123`, { headers: { "sec-fetch-mode": "cors" } });
    assert.equal(api.status, 401);
    const thread = await t.client.threads.create();
    const json = await fetch(`${t.url}/threads/${thread.thread_id}`, { headers: { "x-api-key": key, accept: "*/*" } });
    assert.equal(((await json.json()) as { thread_id: string }).thread_id, thread.thread_id);
    // Deeper thread paths are API paths even for a navigation.
    const state = await get(`${t.url}/api/threads/${thread.thread_id}/state`, { ...navigate, "x-api-key": key });
    assert.match(String(state.headers["content-type"]), /json/);
    const apiThread = await get(`${t.url}/api/threads/${thread.thread_id}`, { ...navigate, "x-api-key": key });
    assert.match(String(apiThread.headers["content-type"]), /json/, "/api is never the app");
    const unknown = await get(`${t.url}/nope/deeper`, navigate);
    assert.equal(unknown.status, 401, "an unknown deep path is not the app");
  } finally {
    await t.close();
  }
});

test("without a build, a page load says how to build the app; API routes are unaffected", async () => {
  const t = await startTestServer({ webDir: path.join(tmpdir(), "deerflow-no-web-build") });
  try {
    const response = await get(`${t.url}/`, navigate);
    assert.equal(response.status, 503);
    assert.match(response.text, /npm run build/);
    assert.equal((await fetch(`${t.url}/ok`)).status, 200);
  } finally {
    await t.close();
  }
});

test("artifacts: bytes of the thread's files, downloads, active content as attachment, no escape", async () => {
  const key = "k".repeat(32);
  const t = await startTestServer({ webDir: null, apiKeys: [key], apiKey: key });
  try {
    const thread = await t.client.threads.create();
    const id = thread.thread_id;
    const paths = threadPaths(t.harness.home, id);
    mkdirSync(paths.outputs_path, { recursive: true });
    writeFileSync(path.join(paths.outputs_path, "note.md"), "# Note\n");
    writeFileSync(path.join(paths.outputs_path, "page.html"), "<script>alert(1)</script>");
    writeFileSync(path.join(t.home.path, "secret.txt"), "secret");
    symlinkSync(path.join(t.home.path, "secret.txt"), path.join(paths.outputs_path, "link.txt"));
    const get = (p: string) => fetch(`${t.url}/api/threads/${id}/artifacts/${p}`, { headers: { "x-api-key": key } });

    const note = await get("mnt/user-data/outputs/note.md");
    assert.equal(note.status, 200);
    assert.equal(await note.text(), "# Note\n");
    assert.match(note.headers.get("content-type") ?? "", /text\/markdown/);
    assert.match(note.headers.get("content-disposition") ?? "", /^inline/);
    assert.equal(note.headers.get("x-content-type-options"), "nosniff");

    const download = await get("mnt/user-data/outputs/note.md?download=true");
    assert.match(download.headers.get("content-disposition") ?? "", /^attachment;.*filename\*=UTF-8''note\.md/);

    const page = await get("mnt/user-data/outputs/page.html");
    assert.match(page.headers.get("content-disposition") ?? "", /^attachment/);
    assert.equal(page.headers.get("content-security-policy"), "sandbox");

    for (const attempt of [
      "mnt/user-data/outputs/../../../secret.txt",
      "mnt/user-data/outputs/%2e%2e/%2e%2e/%2e%2e/secret.txt",
      "etc/passwd",
      "mnt/user-data/outputs/link.txt",
    ]) {
      const response = await get(attempt);
      assert.ok([403, 404].includes(response.status), `${attempt} answered ${response.status}`);
      assert.doesNotMatch(await response.text(), /^secret$/);
    }
    assert.equal((await get("mnt/user-data/outputs/missing.md")).status, 404);
    assert.equal((await fetch(`${t.url}/api/threads/${id}/artifacts/mnt/user-data/outputs/note.md`)).status, 401);
  } finally {
    await t.close();
  }
});

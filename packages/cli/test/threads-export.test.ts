/**
 * `deerflow threads export ID`: a thread's conversation as Markdown (stdout) or JSON (--format json,
 * --out FILE), the same text `GET /threads/{id}/export` answers; bad ids and formats are usage errors.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { before, test } from "node:test";
import { createTempHome, startFakeOpenAIServer } from "@deerflow/harness/testing";
import { CLI, deerflow } from "./run-cli.js";

before(() => {
  assert.ok(existsSync(CLI), `build the CLI first (npm run build): ${CLI} is missing`);
});

test("threads export prints Markdown, writes JSON with --out, and refuses bad input", async () => {
  const dir = createTempHome({ prefix: "df-export-" });
  const server = await startFakeOpenAIServer({ script: [{ content: "Kumquats are citrus." }] });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk-test, base_url: '${server.url}', max_retries: 0}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    const run = await deerflow(dir.path, ["run", "What is a kumquat?"]);
    assert.equal(run.code, 0, run.stderr);
    const thread = /thread: ([\w-]+)/.exec(run.stderr)![1]!;

    const md = await deerflow(dir.path, ["threads", "export", thread]);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^# Untitled conversation\n/);
    assert.match(md.stdout, /## User\n\nWhat is a kumquat\?\n\n---\n\n## Assistant\n\nKumquats are citrus\.\n$/);

    const out = path.join(dir.path, "thread.json");
    const json = await deerflow(dir.path, ["threads", "export", thread, "--format", "json", "--out", out]);
    assert.equal(json.code, 0, json.stderr);
    assert.match(json.stderr, /Exported thread/);
    const parsed = JSON.parse(readFileSync(out, "utf8")) as { thread_id: string; messages: Array<{ type: string }> };
    assert.equal(parsed.thread_id, thread);
    assert.deepEqual(
      parsed.messages.map((message) => message.type),
      ["human", "ai"],
    );

    const badFormat = await deerflow(dir.path, ["threads", "export", thread, "--format", "pdf"]);
    assert.equal(badFormat.code, 2);
    assert.match(badFormat.stderr, /--format takes md \(or markdown\) or json, got "pdf"/);
    const missing = await deerflow(dir.path, ["threads", "export", "no-such-thread"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No thread no-such-thread/);
    const noId = await deerflow(dir.path, ["threads", "export"]);
    assert.equal(noId.code, 2);
    assert.match(noId.stderr, /Give one thread id/);
  } finally {
    await server.close();
    dir.cleanup();
  }
});

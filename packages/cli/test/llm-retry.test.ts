import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { deerflow } from "./run-cli.js";
import { createTempHome, startFakeOpenAIServer } from "@deerflow/harness/testing";

test("a rate-limited model call is retried and the CLI says so, with the wait", async () => {
  const dir = createTempHome({ prefix: "df-cli-retry-" });
  const server = await startFakeOpenAIServer({
    script: [{ status: 429, headers: { "retry-after": "1" } }, { content: "Done after waiting." }],
  });
  try {
    writeFileSync(
      path.join(dir.path, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake-model, api_key: sk-test, base_url: '${server.url}'}\nmemory: {enabled: false}\ntitle: {enabled: false}\n`,
    );
    const result = await deerflow(dir.path, ["run", "Say hi"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Done after waiting\./);
    assert.match(result.stderr, /model fake: rate limited \(HTTP 429\), retrying in 1 s \(retry 1 of 3\)/);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
    dir.cleanup();
  }
});

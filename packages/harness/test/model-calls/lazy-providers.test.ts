/**
 * The provider SDKs load with the first config that names them, not with the harness
 * (model/chat-model-providers.ts): importing `@deerflow/harness` loads none of them, a harness on an
 * OpenAI config loads only OpenAI's, and a model of a provider nobody loaded fails with what to do.
 * Checked in a child process that records every module it loads (a loader hook), since this process's
 * modules depend on which tests ran before.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

// import.meta.resolve: the harness's index as this file runs, compiled under npm test (the child runs it
// with plain node), or its source under tsx.
const INDEX = import.meta.resolve("../../src/index.js");
const LOADER = INDEX.endsWith(".ts") ? ["--import", "tsx"] : [];
const SDK = /node_modules\/(@langchain\/(?:openai|anthropic|ollama)|openai|@anthropic-ai\/sdk|ollama)\//;

/** Runs `body` (an ES module, with `harness` imported) in a child; returns the SDKs it loaded and what it printed. */
function inChild(body: string): { sdks: string[]; stdout: string } {
  const hook = `export async function load(url, context, next) {
    if (${SDK}.test(url)) process.stdout.write("SDK " + ${SDK}.exec(url)[1] + "\\n");
    return next(url, context);
  }`;
  const script = `import { register } from "node:module";
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});
const harness = await import(${JSON.stringify(INDEX)});
${body}`;
  const child = spawnSync(process.execPath, [...LOADER, "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  assert.equal(child.status, 0, child.stderr);
  const sdks = [...new Set([...child.stdout.matchAll(/^SDK (.+)$/gm)].map(([, name]) => name!))].sort();
  return { sdks, stdout: child.stdout };
}

test("importing the harness loads no provider SDK; an OpenAI config loads only OpenAI's", () => {
  const { sdks, stdout } = inChild(`
const entry = { name: "c", use: "anthropic", model: "claude", api_key: "x", supports_thinking: false, supports_vision: false };
try { harness.createChatModel(entry); } catch (error) { console.log("REFUSED " + error.message); }
console.log("IMPORTED");
await harness.loadChatModelProviders([{ use: "openai" }, { use: "demo" }]);
const model = harness.createChatModel({ ...entry, use: "openai", model: "gpt-4o-mini" });
console.log("BUILT " + model.constructor.name);`);
  const beforeLoad = stdout.slice(0, stdout.indexOf("IMPORTED"));
  assert.doesNotMatch(beforeLoad, /^SDK /m, "an SDK loaded with the harness");
  assert.match(
    stdout,
    /REFUSED The anthropic model SDK is not loaded: await loadChatModelProviders\(entries\) before createChatModel/,
  );
  assert.match(stdout, /BUILT ChatOpenAI/);
  assert.deepEqual(sdks, ["@langchain/openai", "openai"]);
});

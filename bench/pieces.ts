/**
 * `node --import tsx bench/pieces.ts [pauseMs...]`: how long `deerflow run` takes against an
 * OpenAI-compatible provider that writes a 70,000-character answer in 1 KiB pieces with a pause after
 * each (issue 21: such an answer hung until the model timeout). Prints, per pause, the provider's own
 * time for the body and the CLI's wall time from spawn to exit (process start and the title call
 * included). Measurement, not a test.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { longAnswers, startFakeOpenAIServer } from "@deerflow/harness/testing";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const pauses = process.argv.slice(2).map(Number);

async function measure(pauseMs: number) {
  const answer = longAnswers.english70k;
  const server = await startFakeOpenAIServer({
    delivery: { maxPieceBytes: 1024, pauseMs },
    script: (body) => ({ content: body.tools?.length ? answer : "A title" }),
  });
  const home = mkdtempSync(path.join(os.tmpdir(), "deerflow-bench-pieces-"));
  try {
    writeFileSync(
      path.join(home, "config.yaml"),
      `models:\n  - {name: fake, use: openai, model: fake, api_key: sk, base_url: '${server.url}', max_retries: 0, timeout: 120}\nmemory: {enabled: false}\n`,
    );
    const providerStart = performance.now();
    const direct = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fake", messages: [{ role: "user", content: "x" }], tools: [{}] }),
    });
    await direct.text();
    const providerMs = performance.now() - providerStart;
    const cliStart = performance.now();
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(root, "scripts", "cli.mjs"), "run", "Answer at length"], {
        cwd: home,
        env: { ...process.env, DEER_FLOW_HOME: path.join(home, ".deer-flow") },
        stdio: ["ignore", "pipe", "ignore"],
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
      });
      child.on("close", (exit) => resolve({ code: exit, stdout: out }));
    });
    const cliMs = performance.now() - cliStart;
    const whole = stdout.trim() === answer.trim();
    console.log(
      `pause ${pauseMs} ms per piece: provider ${(providerMs / 1000).toFixed(2)} s, deerflow run ${(cliMs / 1000).toFixed(2)} s (exit ${code}, answer ${whole ? "whole" : "NOT whole"})`,
    );
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

for (const pauseMs of pauses.length > 0 ? pauses : [5, 20]) await measure(pauseMs);

import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeOpenAIServer } from "./fake-openai-server.js";
import { cutPoints } from "./network-delivery.js";

test("cuts land inside the first multi-byte character, the first JSON string and the first SSE line", () => {
  const body = Buffer.from('data: {"text":"é"}\n\n');
  const cuts = cutPoints(body);
  assert.ok(cuts.includes(3), `inside "data:" (${cuts})`);
  assert.ok(cuts.includes(9), `inside "text" (${cuts})`);
  assert.ok(cuts.includes(16), `between the two bytes of "é" (${cuts})`);
  assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(body.subarray(0, 16)));
});

test("pieces are at most the largest size, vary, and the same body is always cut the same way", () => {
  const body = Buffer.from("x".repeat(50_000));
  const cuts = cutPoints(body, 1024);
  const sizes = [...cuts, body.length].map((at, i) => at - (i === 0 ? 0 : cuts[i - 1]!));
  assert.ok(sizes.every((size) => size > 0 && size <= 1024));
  assert.ok(new Set(sizes).size > 10, "sizes vary");
  assert.deepEqual(cutPoints(body, 1024), cuts);
});

async function readsOf(response: Response): Promise<{ reads: number; text: string }> {
  const reader = response.body!.getReader();
  const bytes: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) bytes.push(read.value);
  return { reads: bytes.length, text: Buffer.concat(bytes).toString("utf8") };
}

const post = (url: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
  });

test("a fake server's answers reach the client in many reads by default, and in one with delivery: whole", async (t) => {
  const content = "分块 🚀 ".repeat(500);
  for (const delivery of [undefined, "whole" as const]) {
    const server = await startFakeOpenAIServer({ delivery, script: [{ content }, { content }] });
    t.after(() => server.close());
    const whole = await readsOf(await post(server.url, {}));
    const streamed = await readsOf(await post(server.url, { stream: true }));
    assert.equal(JSON.parse(whole.text).choices[0].message.content, content);
    assert.match(streamed.text, /data: \[DONE\]\n\n$/);
    if (delivery === "whole") assert.equal(whole.reads, 1);
    else assert.ok(whole.reads > 5 && streamed.reads > 5, `${whole.reads} and ${streamed.reads} reads`);
  }
});

test("gzip: bodies are compressed only for a client that accepts it", async (t) => {
  const server = await startFakeOpenAIServer({ gzip: true, script: () => ({ content: "packed" }) });
  t.after(() => server.close());
  const accepted = await post(server.url, {}, { "accept-encoding": "gzip" });
  assert.equal(accepted.headers.get("content-encoding"), "gzip");
  assert.equal(((await accepted.json()) as any).choices[0].message.content, "packed");
  const plain = await post(server.url, {}, { "accept-encoding": "identity" });
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(((await plain.json()) as any).choices[0].message.content, "packed");
});

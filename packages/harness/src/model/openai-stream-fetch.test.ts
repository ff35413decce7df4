import assert from "node:assert/strict";
import { test } from "node:test";
import { cutPoints } from "../testing/network-delivery.js";
import { ModelResponseError } from "./deadline-fetch.js";
import { mendStreamHead } from "./openai-stream-fetch.js";

/** Runs `text` through the transform in the pieces a network would cut it into. */
async function mend(text: string): Promise<string> {
  const bytes = Buffer.from(text);
  const cuts = [0, ...cutPoints(bytes, 16), bytes.length];
  const source = new ReadableStream<Uint8Array>({
    start(stream) {
      for (let i = 1; i < cuts.length; i++) stream.enqueue(bytes.subarray(cuts[i - 1], cuts[i]));
      stream.close();
    },
  });
  return new Response(source.pipeThrough(mendStreamHead('Model "m"'))).text();
}

const event = (body: object) => `data: ${JSON.stringify(body)}\n\n`;
const chunk = (delta: object) => ({ id: "c", choices: [{ index: 0, delta, finish_reason: null }] });

test("the first delta without a role gets the assistant role; everything after passes unchanged", async () => {
  const rest = `${event(chunk({ content: "ü 世界" }))}${event({ id: "c", choices: [], usage: { total_tokens: 3 } })}data: [DONE]\n\n`;
  const out = await mend(`: keep-alive\n\n${event(chunk({ content: "" }))}${rest}`);
  assert.equal(out, `: keep-alive\n\n${event(chunk({ content: "", role: "assistant" }))}${rest}`);
});

test("a stream that names the role, or whose first chunk is usage-only, is left as it was", async () => {
  const named = `${event(chunk({ role: "assistant", content: "" }))}${event(chunk({ content: "x" }))}data: [DONE]\n\n`;
  assert.equal(await mend(named), named);
  const usageFirst = `${event({ id: "c", choices: [] })}${event(chunk({ role: "assistant", content: "y" }))}`;
  assert.equal(await mend(usageFirst), usageFirst);
});

test("a stream with no choice in it fails with a ModelResponseError naming the model", async () => {
  const error = await mend(`${event({ id: "c", choices: [], usage: { total_tokens: 1 } })}data: [DONE]\n\n`).then(
    () => assert.fail("should fail"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ModelResponseError);
  assert.match(
    error.message,
    /^Model "m" answered HTTP 200 with a stream with no choice in it: the provider sent no answer/,
  );
});

test("an error event, or a stream with no completion chunk at all, reaches the client as it came", async () => {
  const failed = `${event({ error: { message: "overloaded", type: "server_error" } })}`;
  assert.equal(await mend(failed), failed);
  assert.equal(await mend(": just a comment\n\n"), ": just a comment\n\n");
});

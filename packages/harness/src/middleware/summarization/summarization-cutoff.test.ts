import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { findToolPairingError, type WireMessage } from "../../testing/openai-tool-pairing.js";
import { patchDanglingToolCalls } from "../dangling-tool-call/dangling-tool-call.js";
import { findSafeCutoff, unsafeCuts } from "./summarization-cutoff.js";

const ai = (...ids: string[]) =>
  new AIMessage({ content: "", tool_calls: ids.map((id) => ({ id, name: "bash", args: {} })) });
const tool = (id: string) => new ToolMessage({ content: "ok", tool_call_id: id });
const human = (text = "hi") => new HumanMessage(text);

test("a cut between a call and its results moves back so the pair stays in the kept tail", () => {
  const messages = [human(), ai("a", "b"), tool("a"), tool("b"), new AIMessage("done"), human()];
  assert.deepEqual(unsafeCuts(messages), [false, false, true, true, false, false, false]);
  assert.equal(findSafeCutoff(messages, 2), 1);
  assert.equal(findSafeCutoff(messages, 3), 1);
  assert.equal(findSafeCutoff(messages, 4), 4);
  assert.equal(findSafeCutoff(messages, 0), 0);
  assert.equal(findSafeCutoff(messages, 99), 6);
});

test("a pair that starts the thread is passed forward instead of cancelling compaction", () => {
  const messages = [ai("a", "b", "c"), tool("a"), tool("b"), tool("c"), human()];
  assert.equal(findSafeCutoff(messages, 2), 4);
});

test("a human message injected between a call and its result is inside the pair", () => {
  const messages = [human(), ai("a"), human("<uploaded_files>"), tool("a"), new AIMessage("ok")];
  assert.equal(findSafeCutoff(messages, 3), 1);
});

test("ids reused across turns pair with the right call", () => {
  // Turn 1's call "call_0" was interrupted; turn 2 reuses "call_0" and has its result.
  const messages = [human(), ai("call_0"), human(), ai("call_0"), tool("call_0"), new AIMessage("ok")];
  assert.equal(findSafeCutoff(messages, 2), 2, "cutting after the interrupted call is safe");
  assert.equal(findSafeCutoff(messages, 4), 3);
});

// ---- property test -------------------------------------------------------------------------------

/** mulberry32: a small seeded generator, so a failure reproduces from its seed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Conversation {
  messages: BaseMessage[];
  /** [index of the AI message, index of the ToolMessage answering it], as generated. */
  pairs: Array<[number, number]>;
}

/** Random turns: parallel calls, shuffled and error results, interrupted calls, injected human messages, reused ids. */
function randomConversation(rand: () => number): Conversation {
  const messages: BaseMessage[] = [];
  const pairs: Array<[number, number]> = [];
  const pick = (n: number) => Math.floor(rand() * n);
  let unique = 0;
  const turns = 1 + pick(8);
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(human(`turn ${turn}`));
    const steps = pick(4);
    let interrupted = false;
    for (let step = 0; step < steps && !interrupted; step += 1) {
      // Half the responses number their calls "call_0", "call_1"… like some providers, so ids recur.
      const reuse = rand() < 0.5;
      const ids = Array.from({ length: 1 + pick(4) }, (_, i) => (reuse ? `call_${i}` : `u${(unique += 1)}`));
      const aiIndex = messages.push(ai(...ids)) - 1;
      if (rand() < 0.15) messages.push(human("<uploaded_files>"));
      const order = [...ids].sort(() => rand() - 0.5);
      for (const id of order) {
        if (rand() < 0.12) {
          interrupted = true; // this call never returns; the run stopped
          continue;
        }
        const result = new ToolMessage({
          id: `r${messages.length}`,
          content: "r",
          tool_call_id: id,
          status: rand() < 0.2 ? "error" : "success",
        });
        pairs.push([aiIndex, messages.push(result) - 1]);
      }
    }
    if (!interrupted && rand() < 0.7) messages.push(new AIMessage(`answer ${turn}`));
  }
  return { messages, pairs };
}

function toWire(messages: BaseMessage[]): WireMessage[] {
  return messages.map((m) => {
    if (m instanceof ToolMessage) return { role: "tool", tool_call_id: m.tool_call_id };
    if (m instanceof AIMessage)
      return {
        role: "assistant",
        tool_calls: m.tool_calls?.length ? m.tool_calls.map((c) => ({ id: c.id })) : undefined,
      };
    return { role: "user" };
  });
}

test("property: no cutoff ever splits a tool pair, over 500 random conversations", () => {
  for (let seed = 1; seed <= 500; seed += 1) {
    const { messages, pairs } = randomConversation(seeded(seed));
    for (let target = 0; target <= messages.length + 1; target += 1) {
      const cut = findSafeCutoff(messages, target);
      const where = `seed ${seed}, target ${target}, cut ${cut}`;
      assert.ok(cut >= 0 && cut <= messages.length, where);
      for (const [call, result] of pairs)
        assert.ok(!(call < cut && cut <= result), `${where} splits pair ${call}→${result}`);
      if (cut > target)
        for (let c = 1; c <= target; c += 1)
          assert.ok(unsafeCuts(messages)[c], `${where}: moved forward past a safe cut ${c}`);
      // What the provider would receive from the kept tail must pass OpenAI's pairing rule.
      const kept = patchDanglingToolCalls(messages.slice(cut));
      assert.equal(findToolPairingError(toWire(kept)), undefined, where);
      const resultIds = (list: BaseMessage[]) =>
        list.filter((m) => m instanceof ToolMessage && m.id?.startsWith("r")).map((m) => m.id);
      assert.deepEqual(
        resultIds(kept).sort(),
        resultIds(messages.slice(cut)).sort(),
        `${where}: a kept result lost its call`,
      );
    }
  }
});

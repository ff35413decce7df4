import { test } from "node:test";
import assert from "node:assert/strict";
import { findToolPairingError, type WireMessage } from "./openai-tool-pairing.js";

const user = (): WireMessage => ({ role: "user" });
const calls = (...ids: string[]): WireMessage => ({ role: "assistant", tool_calls: ids.map((id) => ({ id })) });
const result = (id: string): WireMessage => ({ role: "tool", tool_call_id: id });

test("accepts histories where every call is answered right after it, in any order", () => {
  assert.equal(
    findToolPairingError([user(), calls("a", "b"), result("b"), result("a"), { role: "assistant" }]),
    undefined,
  );
  assert.equal(findToolPairingError([{ role: "system" }, user(), { role: "assistant" }, user()]), undefined);
  assert.equal(findToolPairingError([]), undefined);
});

test("rejects a call whose answer is missing before the next message", () => {
  const error = findToolPairingError([user(), calls("a", "b"), result("a"), user()]);
  assert.equal(error?.kind, "unanswered_tool_calls");
  assert.match(error!.message, /did not have response messages: b$/);
  assert.equal(error!.param, "messages.[3].role");
});

test("rejects unanswered calls at the end of the history", () => {
  const error = findToolPairingError([user(), calls("a")]);
  assert.equal(error?.kind, "unanswered_tool_calls");
  assert.equal(error!.param, null);
});

test("rejects tool messages that answer no call of the assistant message just before", () => {
  assert.equal(findToolPairingError([user(), result("a")])?.kind, "orphan_tool_message");
  assert.equal(findToolPairingError([user(), calls("a"), result("b")])?.param, "messages.[2].role");
  const late = findToolPairingError([user(), calls("a"), result("a"), { role: "assistant" }, result("a")]);
  assert.equal(late?.kind, "orphan_tool_message", "an answer after another message is not paired");
});

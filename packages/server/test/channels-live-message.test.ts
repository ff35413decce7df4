/**
 * The streamed chat message on its own: edits are spaced by the interval, the final text arrives
 * even when an edit was refused, long text is cut while streaming and split at the end, and the Slack
 * signature check accepts exactly Slack's v0 scheme within the replay window.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { verifySlackSignature } from "../src/channels/index.js";
import { LiveMessage, type MessageSink, splitMessage } from "../src/channels/live-message.js";

/** A sink recording each text sent or edited; the edits listed in `refuse` fail once. */
function recordingSink(maxLength = 100, refuse = new Set<number>()) {
  const messages: string[][] = [];
  let edits = 0;
  const sink: MessageSink = {
    maxLength,
    async send(text) {
      messages.push([text]);
      return String(messages.length - 1);
    },
    async edit(id, text) {
      edits++;
      if (refuse.delete(edits)) throw new Error("Too Many Requests: retry after 1");
      messages[Number(id)]!.push(text);
    },
  };
  return { sink, messages };
}

describe("LiveMessage", () => {
  it("sends, edits as the text grows, and ends with the final text", async () => {
    const { sink, messages } = recordingSink();
    const live = new LiveMessage(sink, 5, () => {});
    live.update("Hel");
    await new Promise((resolve) => setTimeout(resolve, 20));
    live.update("Hello wor");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await live.finish("Hello world");
    assert.deepEqual(messages, [["Hel", "Hello wor", "Hello world"]]);
  });

  it("still delivers the final text when an edit is refused", async () => {
    const logged: string[] = [];
    const { sink, messages } = recordingSink(100, new Set([1]));
    const live = new LiveMessage(sink, 5, (line) => logged.push(line));
    live.update("partial");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await live.finish("the complete answer");
    assert.equal(messages[0]!.at(-1), "the complete answer");
    assert.equal(logged.length, 0);
  });

  it("cuts a long text while streaming and splits it into messages at the end", async () => {
    const { sink, messages } = recordingSink(10);
    const live = new LiveMessage(sink, 1, () => {});
    live.update("0123456789abcdef");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await live.finish("0123456789abcdef");
    assert.deepEqual(messages, [["012345678…", "0123456789"], ["abcdef"]]);
  });

  it("splits at a line break near the limit", () => {
    assert.deepEqual(splitMessage("aaaaaa\nbbbbbbb\ncc", 10), ["aaaaaa", "bbbbbbb\ncc"]);
    assert.deepEqual(splitMessage("aa\nbbbbbbbbbbbb", 10), ["aa\nbbbbbbb", "bbbbb"]);
    assert.deepEqual(splitMessage("short", 10), ["short"]);
  });
});

describe("verifySlackSignature", () => {
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const body = '{"type":"event_callback"}';
  const sign = (timestamp: number, key = secret) =>
    `v0=${createHmac("sha256", key).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  const now = 1_700_000_000_000;

  it("accepts Slack's signature within five minutes", () => {
    assert.equal(verifySlackSignature(secret, body, "1700000000", sign(1_700_000_000), now + 299_000), null);
  });

  it("refuses another secret, a changed body, an old request and missing headers", () => {
    assert.match(
      String(verifySlackSignature(secret, body, "1700000000", sign(1_700_000_000, "other"), now)),
      /does not match/,
    );
    assert.match(
      String(verifySlackSignature(secret, `${body} `, "1700000000", sign(1_700_000_000), now)),
      /does not match/,
    );
    assert.match(
      String(verifySlackSignature(secret, body, "1700000000", sign(1_700_000_000), now + 301_000)),
      /five minutes/,
    );
    assert.match(String(verifySlackSignature(secret, body, undefined, sign(1_700_000_000), now)), /Timestamp/);
    assert.match(String(verifySlackSignature(secret, body, "1700000000", undefined, now)), /Signature header/);
  });
});

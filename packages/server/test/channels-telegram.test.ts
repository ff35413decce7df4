/**
 * Telegram end to end: grammY, as the server runs it, against the Bot API stand-in on loopback (never
 * the real platform), with the fake model behind a real server. A message becomes a run whose answer
 * arrives as a sent message and its edits; a document becomes an upload the model is told about; a
 * presented file comes back by sendDocument; strangers are ignored; /new starts a fresh thread.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTelegramStandIn, type TelegramStandIn } from "@deerflow/harness/testing";
import {
  channelScript,
  LONG_ANSWER,
  NOTES,
  REPORT,
  SLOW_DELIVERY,
  TEST_EDIT_INTERVAL_MS,
  userMessages,
} from "./channels-scene.js";
import { startTestServer, type TestServer } from "./helpers.js";

const ALICE = { id: 42, username: "alice" };
const BOB = { id: 43, username: "bob" };
const MALLORY = { id: 666, username: "mallory" };

describe("Telegram channel", () => {
  let telegram: TelegramStandIn;
  let t: TestServer;

  before(async () => {
    telegram = await startTelegramStandIn();
    t = await startTestServer({
      script: (body) => channelScript(body),
      delivery: SLOW_DELIVERY,
      channels: { editIntervalMs: TEST_EDIT_INTERVAL_MS },
      yaml: [
        "channels:",
        "  telegram:",
        `    bot_token: '${telegram.token}'`,
        "    allowed_users: [42, '@bob']",
        `    api_root: '${telegram.apiRoot}'`,
      ].join("\n"),
    });
  });
  after(async () => {
    await t?.close();
    await telegram?.close();
  });

  /** The bot's messages in a chat. */
  const sentIn = (chatId: number) => telegram.sent.filter((message) => message.chat_id === chatId);
  /** Waits for a message in the chat whose latest text satisfies `done`. */
  const answer = (chatId: number, what: string, done: (text: string) => boolean) =>
    telegram.until(what, () => sentIn(chatId).find((message) => done(message.texts.at(-1)!)));

  it("reports itself running on the providers and connections routes", async () => {
    const providers = (await (await fetch(`${t.url}/api/channels/providers`)).json()) as {
      enabled: boolean;
      providers: Array<Record<string, unknown>>;
    };
    assert.equal(providers.enabled, true);
    const entry = providers.providers.find((provider) => provider.provider === "telegram")!;
    assert.equal(entry.configured, true);
    assert.equal(entry.connection_status, "connected");
    assert.equal(entry.unavailable_reason, null);
    const slack = providers.providers.find((provider) => provider.provider === "slack")!;
    assert.equal(slack.configured, false);
    assert.match(String(slack.unavailable_reason), /channels\.slack/);
    const connections = (await (await fetch(`${t.url}/api/channels/connections`)).json()) as {
      connections: Array<Record<string, unknown>>;
    };
    assert.deepEqual(
      connections.connections.map((item) => [item.provider, item.status, item.external_account_name]),
      [["telegram", "connected", "deerflow_test_bot"]],
    );
  });

  it("streams the answer as edits of one message and ends with the whole text", async () => {
    telegram.userSends(ALICE.id, ALICE, "tell me about deer");
    const message = await answer(ALICE.id, "the whole long answer", (text) => text === LONG_ANSWER);
    assert.ok(message.texts.length >= 3, `expected a sent text and more than one edit, got ${message.texts.length}`);
    assert.ok(
      message.texts.slice(1, -1).some((text) => text.length < LONG_ANSWER.length),
      "an edit showed part of the answer",
    );
    assert.equal(sentIn(ALICE.id).length, 1);
  });

  it("ignores a user who is not allowed: no answer and no run", async () => {
    const requests = t.fake.requests.length;
    telegram.userSends(MALLORY.id, MALLORY, "tell me about deer");
    await telegram.until("the refusal in the log", () =>
      t.logs.find((line) => line.includes("ignored a message from user 666")),
    );
    // Bob is allowed by @username; his answer arriving shows the update after Mallory's was handled.
    telegram.userSends(BOB.id, BOB, "hi from bob");
    await answer(BOB.id, "bob's answer", (text) => text === "echo: hi from bob");
    assert.equal(sentIn(MALLORY.id).length, 0);
    assert.equal(t.fake.requests.length, requests + 1);
  });

  it("stores a document as an upload the model is told about", async () => {
    telegram.userSends(ALICE.id, ALICE, "what is in this?", { name: "notes.txt", data: Buffer.from(NOTES) });
    await answer(ALICE.id, "the answer naming the upload", (text) =>
      text.startsWith("I was given /mnt/user-data/uploads/notes"),
    );
    const [thread] = await t.client.threads.search({ metadata: { channel_chat: `telegram:${ALICE.id}` } });
    const list = (await (await fetch(`${t.url}/api/threads/${thread!.thread_id}/uploads/list`)).json()) as {
      files: Array<{ filename: string; size: number }>;
    };
    assert.deepEqual(
      list.files.map((file) => [file.filename, file.size]),
      [["notes.txt", NOTES.length]],
    );
  });

  it("sends a presented file back as a document", async () => {
    telegram.userSends(ALICE.id, ALICE, "write the report");
    const document = await telegram.until("the report document", () =>
      telegram.documents.find((item) => item.filename === "deer-report.md"),
    );
    assert.equal(document.chat_id, ALICE.id);
    assert.equal(document.data.toString("utf8"), REPORT);
  });

  it("/new starts a fresh thread", async () => {
    telegram.userSends(ALICE.id, ALICE, "before new");
    await answer(ALICE.id, "the answer before /new", (text) => text === "echo: before new");
    assert.ok(userMessages(t.fake.requests.at(-1)!) > 1, "the chat continued its thread");
    telegram.userSends(ALICE.id, ALICE, "/new");
    await answer(ALICE.id, "the /new confirmation", (text) => text === "Started a new conversation.");
    telegram.userSends(ALICE.id, ALICE, "after new");
    await answer(ALICE.id, "the answer after /new", (text) => text === "echo: after new");
    assert.equal(userMessages(t.fake.requests.at(-1)!), 1);
    const threads = await t.client.threads.search({ metadata: { channel_chat: `telegram:${ALICE.id}` } });
    assert.equal(threads.length, 2);
  });
});

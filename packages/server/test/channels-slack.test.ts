/**
 * Slack end to end: `@slack/web-api`, as the server runs it, against the Slack stand-in on loopback
 * (never the real platform), with events delivered to the server's events route as Slack signs them.
 * A message becomes a run whose answer arrives as a posted message and its updates; a shared file
 * becomes an upload the model is told about; a presented file comes back through the external upload
 * flow; other channels are ignored; a bad signature is a 401 and starts nothing; /new starts afresh.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { slackSignatureHeaders, type SlackStandIn, startSlackStandIn } from "@deerflow/harness/testing";
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

const CHANNEL = "C0ALLOWED";
const OTHER = "C0ELSEWHERE";

describe("Slack channel", () => {
  let slack: SlackStandIn;
  let t: TestServer;
  let events: string;

  before(async () => {
    slack = await startSlackStandIn();
    t = await startTestServer({
      script: (body) => channelScript(body),
      delivery: SLOW_DELIVERY,
      channels: { editIntervalMs: TEST_EDIT_INTERVAL_MS },
      yaml: [
        "channels:",
        "  slack:",
        `    bot_token: '${slack.botToken}'`,
        `    signing_secret: '${slack.signingSecret}'`,
        `    allowed_channels: [${CHANNEL}]`,
        `    api_url: '${slack.apiUrl}'`,
      ].join("\n"),
    });
    events = `${t.url}/api/channels/slack/events`;
  });
  after(async () => {
    await t?.close();
    await slack?.close();
  });

  const postedIn = (channel: string) => slack.posted.filter((message) => message.channel === channel);
  const answer = (channel: string, what: string, done: (text: string) => boolean) =>
    slack.until(what, () => postedIn(channel).find((message) => done(message.texts.at(-1)!)));

  it("answers Slack's URL verification challenge", async () => {
    const reply = await slack.verifyUrl(events, "challenge-3eZbrw1a");
    assert.deepEqual(reply, { status: 200, body: { challenge: "challenge-3eZbrw1a" } });
  });

  it("refuses a bad signature with 401 and starts no run", async () => {
    const requests = t.fake.requests.length;
    const reply = await slack.deliverMessage(
      events,
      { channel: CHANNEL, user: "U0ALICE", text: "tell me about deer" },
      { badSignature: true },
    );
    assert.equal(reply.status, 401);
    assert.match(JSON.stringify(reply.body), /signature/);
    const stale = JSON.stringify({ type: "url_verification", challenge: "old" });
    const old = await fetch(events, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...slackSignatureHeaders(slack.signingSecret, stale, Math.floor(Date.now() / 1000) - 600),
      },
      body: stale,
    });
    assert.equal(old.status, 401);
    assert.equal(t.fake.requests.length, requests);
    assert.equal(postedIn(CHANNEL).length, 0);
    const runs = await t.client.threads.search({ metadata: { channel_chat: `slack:${CHANNEL}` } });
    assert.equal(runs.length, 0);
  });

  it("streams the answer as updates of one message and ends with the whole text", async () => {
    const reply = await slack.deliverMessage(events, {
      channel: CHANNEL,
      user: "U0ALICE",
      text: `<@${slack.botUserId}> tell me about deer`,
    });
    assert.equal(reply.status, 200);
    const message = await answer(CHANNEL, "the whole long answer", (text) => text === LONG_ANSWER);
    assert.ok(
      message.texts.length >= 3,
      `expected a posted text and more than one update, got ${message.texts.length}`,
    );
    assert.equal(postedIn(CHANNEL).length, 1);
  });

  it("ignores a channel that is not allowed", async () => {
    const requests = t.fake.requests.length;
    await slack.deliverMessage(events, { channel: OTHER, user: "U0MALLORY", text: "tell me about deer" });
    await slack.until("the refusal in the log", () => t.logs.find((line) => line.includes(`channel ${OTHER}`)));
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "still there?" });
    await answer(CHANNEL, "the next allowed answer", (text) => text === "echo: still there?");
    assert.equal(postedIn(OTHER).length, 0);
    assert.equal(t.fake.requests.length, requests + 1);
  });

  it("stores a shared file as an upload the model is told about", async () => {
    const file = slack.shareFile("notes.txt", Buffer.from(NOTES));
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "what is in this?", files: [file] });
    await answer(CHANNEL, "the answer naming the upload", (text) =>
      text.startsWith("I was given /mnt/user-data/uploads/notes"),
    );
  });

  it("sends a presented file back through the upload flow", async () => {
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "write the report" });
    const uploaded = await slack.until("the report upload", () =>
      slack.files.find((item) => item.filename === "deer-report.md"),
    );
    assert.equal(uploaded.channel, CHANNEL);
    assert.equal(uploaded.data.toString("utf8"), REPORT);
  });

  it("/new starts a fresh thread", async () => {
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "before new" });
    await answer(CHANNEL, "the answer before /new", (text) => text === "echo: before new");
    assert.ok(userMessages(t.fake.requests.at(-1)!) > 1);
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "/new" });
    await answer(CHANNEL, "the /new confirmation", (text) => text === "Started a new conversation.");
    await slack.deliverMessage(events, { channel: CHANNEL, user: "U0ALICE", text: "after new" });
    await answer(CHANNEL, "the answer after /new", (text) => text === "echo: after new");
    assert.equal(userMessages(t.fake.requests.at(-1)!), 1);
  });
});

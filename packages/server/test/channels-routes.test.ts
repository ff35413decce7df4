/**
 * The channel routes around the conversations: a restart is for admins only, the browser's connect and
 * credential routes say where channels are set up, Slack's events route works on a server that
 * needs sign-in (its signature is its credential), a bot with a webhook is not polled, and a thread
 * a channel made before accounts existed belongs to the first admin.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startSlackStandIn, startTelegramStandIn } from "@deerflow/harness/testing";
import { addUser, issueToken, postToChannel } from "../src/index.js";
import { startTestServer } from "./helpers.js";

test("restart is admin-only; connect and credential routes answer 409; Slack events need no sign-in", async (t) => {
  const telegram = await startTelegramStandIn();
  const slack = await startSlackStandIn();
  const s = await startTestServer({
    yaml: [
      "channels:",
      `  telegram: {bot_token: '${telegram.token}', allowed_users: ['*'], api_root: '${telegram.apiRoot}'}`,
      `  slack: {bot_token: ${slack.botToken}, signing_secret: ${slack.signingSecret}, allowed_channels: ['*'], api_url: '${slack.apiUrl}'}`,
    ].join("\n"),
  });
  t.after(async () => {
    await s.close();
    await telegram.close();
    await slack.close();
  });
  const admin = await addUser(s.server.context.users, { name: "root", admin: true });
  const bob = await addUser(s.server.context.users, { name: "bob" });
  const adminKey = (await issueToken(s.server.context.users, admin.id, "api")).token;
  const bobsKey = (await issueToken(s.server.context.users, bob.id, "api")).token;
  s.server.context.auth.refresh();
  const as = (key: string, method: string, path: string) =>
    fetch(`${s.url}/api/channels${path}`, { method, headers: { "x-api-key": key } });

  assert.equal((await as(bobsKey, "POST", "/telegram/restart")).status, 403);
  const restarted = await as(adminKey, "POST", "/telegram/restart");
  assert.deepEqual(await restarted.json(), { success: true, message: "Telegram restarted." });
  assert.equal((await as(adminKey, "POST", "/discord/restart")).status, 404);

  for (const [method, path] of [
    ["POST", "/telegram/connect"],
    ["POST", "/slack/runtime-config"],
    ["DELETE", "/slack/runtime-config"],
    ["DELETE", "/connections/telegram"],
  ] as const) {
    const refused = await as(bobsKey, method, path);
    assert.equal(refused.status, 409, `${method} ${path}`);
    assert.match(((await refused.json()) as { detail: string }).detail, /config\.yaml/);
  }

  // Signed in or not, Slack reaches its route; an unsigned request is still refused.
  assert.deepEqual(await slack.verifyUrl(`${s.url}/api/channels/slack/events`, "abc"), {
    status: 200,
    body: { challenge: "abc" },
  });
  assert.equal((await fetch(`${s.url}/api/channels/slack/events`, { method: "POST", body: "{}" })).status, 401);
  assert.equal((await fetch(`${s.url}/api/channels/providers`)).status, 401);

  const status = (await (await as(bobsKey, "GET", "")).json()) as Record<string, unknown>;
  assert.deepEqual(status, {
    service_running: true,
    channels: {
      telegram: { enabled: true, running: true, error: null },
      slack: { enabled: true, running: true, error: null },
    },
  });
});

test("a Telegram bot with a webhook is not polled, and the providers route says why", async (t) => {
  const telegram = await startTelegramStandIn({ webhookUrl: "https://example.com/hook" });
  const s = await startTestServer({
    yaml: `channels:\n  telegram: {bot_token: '${telegram.token}', allowed_users: [1], api_root: '${telegram.apiRoot}'}`,
  });
  t.after(async () => {
    await s.close();
    await telegram.close();
  });
  const body = (await (await fetch(`${s.url}/api/channels/providers`)).json()) as {
    providers: Array<Record<string, unknown>>;
  };
  const entry = body.providers.find((provider) => provider.provider === "telegram")!;
  assert.equal(entry.configured, true);
  assert.equal(entry.connection_status, "not_connected");
  assert.match(String(entry.unavailable_reason), /webhook \(https:\/\/example\.com\/hook\).*deleteWebhook/);
  assert.ok(!telegram.calls.includes("getUpdates"), "the bot was polled");
  assert.ok(!telegram.calls.includes("deleteWebhook"), "the webhook was deleted");
  await assert.rejects(
    s.server.context.channels.postToChannel("telegram", "1", "hello"),
    /telegram channel is not running/,
  );
});

test("postToChannel sends text and files to a chat", async (t) => {
  const telegram = await startTelegramStandIn();
  const s = await startTestServer({
    yaml: `channels:\n  telegram: {bot_token: '${telegram.token}', allowed_users: [1], api_root: '${telegram.apiRoot}'}`,
  });
  t.after(async () => {
    await s.close();
    await telegram.close();
  });
  await postToChannel(s.server.context, "telegram", "77", "The nightly report is ready.", [
    { name: "report.md", data: Buffer.from("# Report\n") },
  ]);
  assert.deepEqual(
    telegram.sent.map((message) => [message.chat_id, message.texts]),
    [[77, ["The nightly report is ready."]]],
  );
  assert.deepEqual(
    telegram.documents.map((document) => [document.chat_id, document.filename, document.data.toString()]),
    [[77, "report.md", "# Report\n"]],
  );
  await assert.rejects(
    s.server.context.channels.postToChannel("slack", "C1", "hi"),
    /add channels\.slack to config\.yaml/,
  );
});

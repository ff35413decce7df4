/**
 * A cron's `deliver_to` (docs/schedules.md): a due cron's final answer arrives in a Telegram chat,
 * posted by the real grammY client to the Bot API stand-in on loopback; a scheduled task's manual run
 * does the same under the task's title; a channel that is not configured, or unknown, is a 422 that
 * names it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTelegramStandIn, type TelegramStandIn } from "@deerflow/harness/testing";
import { startTestServer, type TestServer } from "./helpers.js";

const CHAT = 4242;

describe("cron delivery to a chat channel", () => {
  let telegram: TelegramStandIn;
  let t: TestServer;

  before(async () => {
    telegram = await startTelegramStandIn();
    t = await startTestServer({
      script: () => ({ content: "The nightly report: all green." }),
      yaml: [
        "channels:",
        "  telegram:",
        `    bot_token: '${telegram.token}'`,
        "    allowed_users: [42]",
        `    api_root: '${telegram.apiRoot}'`,
      ].join("\n"),
    });
  });
  after(async () => {
    await t?.close();
    await telegram?.close();
  });

  const sentTo = (chatId: number, text: string) =>
    telegram.until(`"${text}" in chat ${chatId}`, () =>
      telegram.sent.find((message) => message.chat_id === chatId && message.texts.at(-1)!.includes(text)),
    );

  it("posts a due cron's answer to the chat", async () => {
    // The SDK's crons.create sends only LangGraph's fields, so deliver_to goes by plain fetch.
    const response = await fetch(`${t.url}/runs/crons`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "lead_agent",
        schedule: "0 3 * * *",
        input: { messages: [{ role: "user", content: "Write the nightly report" }] },
        deliver_to: { channel: "telegram", target: String(CHAT) },
      }),
    });
    const cron = (await response.json()) as { cron_id: string; deliver_to: unknown };
    assert.deepEqual(cron.deliver_to, { channel: "telegram", target: String(CHAT) });
    await t.server.context.crons.update(cron.cron_id, null, { next_run_at: new Date().toISOString() });
    await t.server.context.announceCrons();
    const message = await sentTo(CHAT, "The nightly report: all green.");
    assert.equal(message.texts.at(-1), "The nightly report: all green.");
    const [fired] = await t.client.crons.search({ limit: 10 });
    const deliveries = await t.server.context.deliveries.ofRun(
      (fired as unknown as { last_run_id: string }).last_run_id,
    );
    assert.deepEqual(
      deliveries.map((delivery) => delivery.status),
      ["delivered"],
    );
  });

  it("posts a scheduled task's triggered run under its title", async () => {
    const created = await fetch(`${t.url}/api/scheduled-tasks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        title: "Nightly",
        prompt: "Write the nightly report",
        schedule_type: "cron",
        schedule_spec: { cron: "0 3 * * *" },
        deliver_to: { channel: "telegram", target: "4343" },
      }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    await fetch(`${t.url}/api/scheduled-tasks/${id}/trigger`, { method: "POST" });
    const message = await sentTo(4343, "all green");
    assert.equal(message.texts.at(-1), "Nightly\n\nThe nightly report: all green.");
  });

  it("refuses a channel that is not configured, or unknown, naming it", async () => {
    for (const [deliverTo, message] of [
      [{ channel: "slack", target: "C1" }, /the slack channel is not configured.*channels\.slack/],
      [{ channel: "discord", target: "1" }, /deliver_to.*"telegram" or "slack"/],
      [{ channel: "telegram", target: "" }, /deliver_to.*Telegram chat id/],
    ] as const) {
      const response = await fetch(`${t.url}/runs/crons`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "lead_agent", schedule: "0 3 * * *", deliver_to: deliverTo }),
      });
      assert.equal(response.status, 422);
      assert.match(((await response.json()) as { detail: string }).detail, message);
    }
  });
});

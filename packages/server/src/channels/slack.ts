/**
 * Slack through `@slack/web-api`: the Events API posts to `POST /api/channels/slack/events` on this
 * server. Every request must carry a valid v0 signature (HMAC-SHA256 of `v0:{timestamp}:{body}` with
 * the signing secret, timestamp within five minutes) or it gets 401 and nothing runs. The URL
 * verification challenge is answered; events are acknowledged at once and handled after, a retried
 * delivery of an event already seen is dropped. Messages in channels not in `allowed_channels` and
 * messages from bots are ignored. Answers stream as `chat.update` (tier 3, about 50 a minute: one edit
 * per 1.2 s); files shared in become uploads; presented files go back by `files.uploadV2`.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { SlackChannelConfig } from "@deerflow/harness";
import { type Logger, LogLevel, WebClient } from "@slack/web-api";
import { type ChatReply, type Conversations, postTo } from "./conversations.js";
import { type ChannelRunner, type ChannelStatus, idleStatus } from "./types.js";

/** Slack's longest message text. */
const MAX_MESSAGE_LENGTH = 40_000;
/** chat.update is tier 3: about 50 calls a minute. */
export const SLACK_EDIT_INTERVAL_MS = 1200;
/** Oldest signed request accepted, in seconds (Slack's replay window). */
const REPLAY_WINDOW_SECONDS = 5 * 60;
/** Event ids remembered to drop Slack's retried deliveries. */
const SEEN_EVENTS = 1000;

/** Options beyond the config. */
export interface SlackOptions {
  editIntervalMs?: number;
  log: (line: string) => void;
}

/** The answer to one Events API request. */
export interface SlackEventAnswer {
  status: 200 | 401 | 400;
  body: Record<string, unknown>;
}

/** A running Slack channel: a ChannelRunner that also takes the Events API's requests. */
export interface SlackRunner extends ChannelRunner {
  handleEvent(rawBody: string, header: (name: string) => string | undefined): SlackEventAnswer;
}

/**
 * Why a request's signature is not valid, or null when it is.
 *
 * @example
 * verifySlackSignature(secret, body, "1700000000", "v0=5f2c...", 1700000010_000) // null
 */
export function verifySlackSignature(
  secret: string,
  rawBody: string,
  timestamp: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): string | null {
  if (!timestamp || !/^\d+$/.test(timestamp)) return "the X-Slack-Request-Timestamp header is missing";
  if (!signature) return "the X-Slack-Signature header is missing";
  if (Math.abs(now / 1000 - Number(timestamp)) > REPLAY_WINDOW_SECONDS)
    return "the request is more than five minutes old (or the clocks differ)";
  const expected = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    return "the signature does not match the signing secret";
  return null;
}

/** True when a channel is listed in `allowed_channels`, or the list has "*". */
export function slackChannelAllowed(allowed: readonly string[], channel: string): boolean {
  return allowed.includes("*") || allowed.includes(channel);
}

/** A Slack file shared with a message, as the Events API describes it. */
interface SlackFile {
  name?: string;
  url_private_download?: string;
  url_private?: string;
}

/** Starts the client (auth.test names the bot); events then arrive through `handleEvent`. */
export async function startSlack(
  config: SlackChannelConfig,
  conversations: Conversations,
  options: SlackOptions,
): Promise<SlackRunner> {
  const client = new WebClient(config.bot_token, {
    slackApiUrl: config.api_url,
    retryConfig: { retries: 2 },
    logger: quietLogger(options.log),
  });
  const interval = options.editIntervalMs ?? SLACK_EDIT_INTERVAL_MS;
  const seen = new Set<string>();
  let status: ChannelStatus = idleStatus();
  let botUserId: string | undefined;

  try {
    const auth = await client.auth.test();
    botUserId = auth.user_id;
    status = {
      running: true,
      error: null,
      account: { id: auth.user_id ?? "", name: auth.user ?? "" },
      workspace: { id: auth.team_id ?? "", name: auth.team ?? "" },
    };
    options.log(`slack: receiving events at /api/channels/slack/events as ${auth.user} in ${auth.team}`);
  } catch (error) {
    status = idleStatus((error as Error).message);
    options.log(`slack: not started: ${(error as Error).message}`);
  }

  const replyIn = (channel: string): ChatReply => ({
    maxLength: MAX_MESSAGE_LENGTH,
    editIntervalMs: interval,
    send: async (text) => String((await client.chat.postMessage({ channel, text })).ts),
    edit: async (ts, text) => {
      await client.chat.update({ channel, ts, text });
    },
    sendFile: async (filename, data) => {
      await client.files.uploadV2({ channel_id: channel, file: data, filename });
    },
  });

  /** The bot token goes only to Slack's own hosts (and the configured API's host). */
  const download = async (file: SlackFile): Promise<File> => {
    const url = file.url_private_download ?? file.url_private;
    const name = file.name ?? "file";
    if (!url) throw new Error(`Slack gave no download address for ${name}.`);
    const host = new URL(url).hostname;
    const trusted = host === "slack.com" || host.endsWith(".slack.com") || host === new URL(config.api_url).hostname;
    if (!trusted) throw new Error(`${name} is not on a Slack host (${host}); not downloaded.`);
    const response = await fetch(url, { headers: { authorization: `Bearer ${config.bot_token}` } });
    if (!response.ok) throw new Error(`Downloading ${name} from Slack failed: HTTP ${response.status}.`);
    return new File([new Uint8Array(await response.arrayBuffer())], name);
  };

  const receive = (event: Record<string, unknown>) => {
    const channel = String(event.channel ?? "");
    if (!slackChannelAllowed(config.allowed_channels, channel)) {
      options.log(`slack: ignored a message in channel ${channel}: not in channels.slack.allowed_channels`);
      return;
    }
    const reply = replyIn(channel);
    const text = String(event.text ?? "")
      .replace(new RegExp(`<@${botUserId ?? "-"}>\\s*`, "g"), "")
      .trim();
    const shared = Array.isArray(event.files) ? (event.files as SlackFile[]) : [];
    void Promise.all(shared.map(download))
      .then((files) => conversations.receive({ chat: `slack:${channel}`, text, files }, reply))
      .catch(async (error) => {
        options.log(`slack: ${(error as Error).message}`);
        await reply.send(`Sorry, your files could not be received: ${(error as Error).message}`).catch(() => {});
      });
  };

  const isUserMessage = (event: Record<string, unknown>) =>
    event.type === "message" &&
    (event.subtype === undefined || event.subtype === "file_share") &&
    event.bot_id === undefined &&
    event.user !== botUserId;

  /** True the first time an event id is seen (Slack retries deliveries it thinks failed). */
  const firstSight = (eventId: string) => {
    if (seen.has(eventId)) return false;
    seen.add(eventId);
    if (seen.size > SEEN_EVENTS) seen.delete(seen.values().next().value!);
    return true;
  };

  return {
    status: () => status,
    handleEvent(rawBody, header) {
      const invalid = verifySlackSignature(
        config.signing_secret,
        rawBody,
        header("x-slack-request-timestamp"),
        header("x-slack-signature"),
      );
      if (invalid) {
        options.log(`slack: refused an events request: ${invalid}`);
        return { status: 401, body: { detail: `Invalid Slack request signature: ${invalid}.` } };
      }
      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(rawBody) as Record<string, unknown>;
      } catch {
        return { status: 400, body: { detail: "The events request body is not JSON." } };
      }
      if (payload.type === "url_verification") return { status: 200, body: { challenge: payload.challenge } };
      const event = payload.event as Record<string, unknown> | undefined;
      if (payload.type === "event_callback" && event && isUserMessage(event) && firstSight(String(payload.event_id)))
        receive(event);
      return { status: 200, body: { ok: true } };
    },
    async post(target, text, files) {
      await postTo(replyIn(target), text, files);
    },
    async stop() {
      status = { ...status, running: false };
    },
  };
}

/** The Web API client's logger: its warnings and errors go to the server log, the rest nowhere. */
function quietLogger(log: (line: string) => void): Logger {
  let level = LogLevel.WARN;
  const write = (words: unknown[]) => log(`slack: ${words.map(String).join(" ")}`);
  return {
    debug: () => {},
    info: () => {},
    warn: (...words: unknown[]) => write(words),
    error: (...words: unknown[]) => write(words),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => {},
  };
}

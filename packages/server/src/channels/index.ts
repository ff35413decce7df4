/**
 * The chat channels of `deerflow serve` (docs/channels.md): Telegram and Slack, each started when its
 * `channels:` section is configured. The server starts them after its worker and stops them first on
 * shutdown; the routes read their status and Slack's events route hands requests to them.
 * `postToChannel` is the seam for anything else that wants to speak in a chat (a scheduled task's result).
 */
import type { ServerContext } from "../context.js";
import { Conversations } from "./conversations.js";
import { type SlackRunner, startSlack } from "./slack.js";
import { startTelegram } from "./telegram.js";
import {
  CHANNEL_NAMES,
  type ChannelName,
  type ChannelRunner,
  type ChannelStatus,
  idleStatus,
  type OutgoingFile,
} from "./types.js";

export { type ChannelName, type ChannelStatus, type OutgoingFile } from "./types.js";
export { verifySlackSignature } from "./slack.js";

/** Options of the channels (tests shorten the edit interval). */
export interface ChannelOptions {
  /** Least time between two edits of a streamed answer, in ms (default: each platform's limit). */
  editIntervalMs?: number;
}

/** The running channels. */
export interface ChannelService {
  /** Starts every configured platform; a platform that fails to start reports why in its status. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops and starts one platform again (after fixing its credentials or network). */
  restart(name: ChannelName): Promise<ChannelStatus>;
  /** True when config.yaml has the platform's section. */
  configured(name: ChannelName): boolean;
  status(name: ChannelName): ChannelStatus;
  /** Sends text and files to a chat: a Telegram chat id, or a Slack channel id. */
  postToChannel(channel: ChannelName, target: string, text: string, files?: readonly OutgoingFile[]): Promise<void>;
  /** Slack's Events API requests (routes/channels.ts). */
  slack(): SlackRunner | undefined;
}

/** Creates the channels of a server (nothing starts until `start`, which reads the context). */
export function createChannels(contextOf: () => ServerContext, options: ChannelOptions = {}): ChannelService {
  const config = () => contextOf().config.channels;
  const runners = new Map<ChannelName, ChannelRunner>();
  let conversations: Conversations | undefined;

  const startOne = async (name: ChannelName): Promise<void> => {
    const context = contextOf();
    conversations ??= new Conversations(context);
    const common = { editIntervalMs: options.editIntervalMs, log: context.options.log };
    const { telegram, slack } = context.config.channels;
    if (name === "telegram" && telegram) runners.set(name, await startTelegram(telegram, conversations, common));
    if (name === "slack" && slack) runners.set(name, await startSlack(slack, conversations, common));
  };

  const service: ChannelService = {
    async start() {
      for (const name of CHANNEL_NAMES) if (service.configured(name)) await startOne(name);
    },
    async stop() {
      for (const runner of runners.values()) await runner.stop();
      runners.clear();
    },
    async restart(name) {
      await runners.get(name)?.stop();
      runners.delete(name);
      if (service.configured(name)) await startOne(name);
      return service.status(name);
    },
    configured: (name) => Boolean(config()[name]),
    status: (name) => runners.get(name)?.status() ?? idleStatus(),
    async postToChannel(channel, target, text, files = []) {
      const runner = runners.get(channel);
      if (!service.configured(channel))
        throw new Error(`The ${channel} channel is not configured; add channels.${channel} to config.yaml.`);
      if (!runner?.status().running)
        throw new Error(
          `The ${channel} channel is not running (${service.status(channel).error ?? "not started"}); see GET /api/channels/providers.`,
        );
      await runner.post(target, text, files);
    },
    slack: () => runners.get("slack") as SlackRunner | undefined,
  };
  return service;
}

/**
 * Sends text and files to a chat of a running server's channel: a Telegram chat id or a Slack channel
 * id (the seam for a scheduled task's result). Throws, saying why, when the channel is not configured
 * or not running.
 *
 * @example
 * await postToChannel(server.context, "telegram", "123456789", "The nightly report:", [{ name: "report.md", data }]);
 */
export function postToChannel(
  context: ServerContext,
  channel: ChannelName,
  target: string,
  text: string,
  files: readonly OutgoingFile[] = [],
): Promise<void> {
  return context.channels.postToChannel(channel, target, text, files);
}

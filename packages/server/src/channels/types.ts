/**
 * The shapes the channel modules share: what a running platform reports about itself and what every
 * platform can do for the rest of the server (post a message with files to a chat).
 */

/** A file to send into a chat. */
export interface OutgoingFile {
  name: string;
  data: Uint8Array;
}

/** What a platform reports for the status routes. */
export interface ChannelStatus {
  /** Receiving messages now. */
  running: boolean;
  /** Why it is not running, when it tried and failed. */
  error: string | null;
  /** The bot's own account on the platform, once known. */
  account: { id: string; name: string } | null;
  /** Slack: the workspace the bot belongs to. */
  workspace: { id: string; name: string } | null;
}

/** One running platform. */
export interface ChannelRunner {
  status(): ChannelStatus;
  /** Sends `text` (split when long) and then each file to a chat, outside any conversation. */
  post(target: string, text: string, files: readonly OutgoingFile[]): Promise<void>;
  stop(): Promise<void>;
}

/** The platforms we have. */
export const CHANNEL_NAMES = ["telegram", "slack"] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** A status before the platform has started. */
export function idleStatus(error: string | null = null): ChannelStatus {
  return { running: false, error, account: null, workspace: null };
}

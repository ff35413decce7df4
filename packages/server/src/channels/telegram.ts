/**
 * Telegram through grammY: updates arrive by long polling (`getUpdates`), the self-hosted setup that
 * needs no public address. A bot with a webhook set is left alone (polling would delete the webhook):
 * its status says so. Messages from users not in `allowed_users` are ignored and logged with the
 * sender's id, so the owner can add it. Answers stream as `editMessageText`, at most one edit per
 * second per chat; documents and photos sent in become uploads; presented files go back by `sendDocument`.
 */
import type { TelegramChannelConfig } from "@deerflow/harness";
import { Bot, InputFile } from "grammy";
import type { Message, User } from "grammy/types";
import { type ChatReply, type Conversations, postTo } from "./conversations.js";
import { type ChannelRunner, type ChannelStatus, idleStatus } from "./types.js";

/** Telegram's longest message text. */
const MAX_MESSAGE_LENGTH = 4096;
/** Telegram allows about one edit per second in a chat. */
export const TELEGRAM_EDIT_INTERVAL_MS = 1000;

/** Options beyond the config. */
export interface TelegramOptions {
  editIntervalMs?: number;
  log: (line: string) => void;
}

/** True when `user` is listed in `allowed_users` (by id or @username), or the list has "*". */
export function telegramUserAllowed(allowed: TelegramChannelConfig["allowed_users"], user: User | undefined): boolean {
  if (!user) return false;
  const username = user.username?.toLowerCase();
  return allowed.some((entry) => {
    const text = String(entry);
    if (text === "*") return true;
    if (/^\d+$/.test(text)) return Number(text) === user.id;
    return username !== undefined && text.replace(/^@/, "").toLowerCase() === username;
  });
}

/** Starts the bot; resolves once it is polling (or has failed, which its status then tells). */
export async function startTelegram(
  config: TelegramChannelConfig,
  conversations: Conversations,
  options: TelegramOptions,
): Promise<ChannelRunner> {
  const bot = new Bot(config.bot_token, { client: { apiRoot: config.api_root } });
  const interval = options.editIntervalMs ?? TELEGRAM_EDIT_INTERVAL_MS;
  let status: ChannelStatus = idleStatus();

  const replyIn = (chatId: number): ChatReply => ({
    maxLength: MAX_MESSAGE_LENGTH,
    editIntervalMs: interval,
    send: async (text) => String((await bot.api.sendMessage(chatId, text)).message_id),
    edit: async (id, text) => {
      await bot.api.editMessageText(chatId, Number(id), text);
    },
    sendFile: async (name, data) => {
      await bot.api.sendDocument(chatId, new InputFile(data, name));
    },
  });

  const download = async (fileId: string, name: string): Promise<File> => {
    const file = await bot.api.getFile(fileId);
    if (!file.file_path) throw new Error(`Telegram gave no download path for ${name}.`);
    const response = await fetch(`${config.api_root}/file/bot${config.bot_token}/${file.file_path}`);
    if (!response.ok) throw new Error(`Downloading ${name} from Telegram failed: HTTP ${response.status}.`);
    return new File([new Uint8Array(await response.arrayBuffer())], name);
  };

  const filesOf = async (message: Message): Promise<File[]> => {
    const files: File[] = [];
    if (message.document)
      files.push(await download(message.document.file_id, message.document.file_name ?? "document"));
    const photo = message.photo?.at(-1);
    if (photo) files.push(await download(photo.file_id, `photo_${photo.file_unique_id}.jpg`));
    return files;
  };

  bot.on("message", (ctx) => {
    const message = ctx.message;
    if (!telegramUserAllowed(config.allowed_users, message.from)) {
      options.log(
        `telegram: ignored a message from user ${message.from?.id ?? "?"}${message.from?.username ? ` (@${message.from.username})` : ""}: not in channels.telegram.allowed_users`,
      );
      return;
    }
    const reply = replyIn(message.chat.id);
    void filesOf(message)
      .then((files) =>
        conversations.receive(
          { chat: `telegram:${message.chat.id}`, text: message.text ?? message.caption ?? "", files },
          reply,
        ),
      )
      .catch(async (error) => {
        options.log(`telegram: ${(error as Error).message}`);
        await reply.send(`Sorry, your files could not be received: ${(error as Error).message}`).catch(() => {});
      });
  });
  bot.catch((error) => options.log(`telegram: ${error.message}`));

  try {
    await bot.init();
    const webhook = await bot.api.getWebhookInfo();
    if (webhook.url)
      throw new Error(
        `the bot has a webhook (${webhook.url}), and long polling would remove it. Delete the webhook (https://api.telegram.org/bot<token>/deleteWebhook) to let this server poll.`,
      );
    const account = { id: String(bot.botInfo.id), name: bot.botInfo.username };
    await new Promise<void>((resolve, reject) => {
      bot
        .start({ allowed_updates: ["message"], onStart: () => resolve() })
        .then(() => {
          status = { ...status, running: false };
        })
        .catch((error: Error) => {
          status = { ...status, running: false, error: error.message };
          options.log(`telegram: polling stopped: ${error.message}`);
          reject(error);
        });
    });
    status = { running: true, error: null, account, workspace: null };
    options.log(`telegram: receiving messages as @${account.name} (long polling)`);
  } catch (error) {
    status = idleStatus((error as Error).message);
    options.log(`telegram: not started: ${(error as Error).message}`);
  }

  return {
    status: () => status,
    async post(target, text, files) {
      const chatId = Number(target);
      if (!Number.isSafeInteger(chatId))
        throw new Error(`"${target}" is not a Telegram chat id; give the numeric id of the chat.`);
      await postTo(replyIn(chatId), text, files);
    },
    async stop() {
      if (bot.isRunning()) await bot.stop();
      status = { ...status, running: false };
    },
  };
}

/**
 * A stand-in for Telegram's Bot API on loopback, so channel tests run the real grammY client without the
 * real platform (point it here with its `apiRoot`). It speaks the methods a polling bot uses: `getMe`,
 * `getWebhookInfo`, `deleteWebhook`, long-polled `getUpdates`, `sendMessage`, `editMessageText`,
 * `sendDocument` (multipart), `getFile` and file downloads at `/file/bot<token>/<path>`, and refuses a
 * wrong token with 401 as Telegram does. A test plays users with `userSends` and reads what the bot did
 * in `sent` (every message with its edits) and `documents`; `until` waits for a condition to hold.
 * Answers go out in pieces, as over a network (`network-delivery.ts`).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ChangeSignal } from "./change-signal.js";
import { type MultipartPart, readMultipart } from "./multipart.js";
import { deliver } from "./network-delivery.js";

/** A user of the stand-in's chats. */
export interface TelegramTestUser {
  id: number;
  username?: string;
  first_name?: string;
}

/** A message the bot sent, with every text it was edited to (the first entry is the sent text). */
export interface TelegramSentMessage {
  chat_id: number;
  message_id: number;
  texts: string[];
}

/** A document the bot sent. */
export interface TelegramSentDocument {
  chat_id: number;
  filename: string;
  data: Buffer;
}

/** Options of `startTelegramStandIn`. */
export interface TelegramStandInOptions {
  /** The token the bot must use (default "123456:test-token"). */
  token?: string;
  /** The bot's username (default "deerflow_test_bot"). */
  username?: string;
  /** What getWebhookInfo reports as the webhook URL (default none). */
  webhookUrl?: string;
}

/** A running stand-in. */
export interface TelegramStandIn {
  /** The value for grammY's `apiRoot` (and `channels.telegram.api_root`). */
  apiRoot: string;
  token: string;
  sent: TelegramSentMessage[];
  documents: TelegramSentDocument[];
  /** Every Bot API call, by method name, in arrival order. */
  calls: string[];
  /** Queues a message from `from` in chat `chatId` (a private chat has the user's id), optionally with a document. */
  userSends(chatId: number, from: TelegramTestUser, text: string, document?: { name: string; data: Buffer }): void;
  /** Resolves once `check` returns a value other than undefined, re-checking after every call the bot makes. */
  until<T>(what: string, check: () => T | undefined): Promise<T>;
  close(): Promise<void>;
}

/** Longest a test waits in `until` before failing with what it waited for. */
const UNTIL_LIMIT_MS = 30_000;

/** Starts the stand-in on an OS-chosen loopback port. */
export async function startTelegramStandIn(options: TelegramStandInOptions = {}): Promise<TelegramStandIn> {
  const token = options.token ?? "123456:test-token";
  const botId = Number(token.split(":")[0]);
  const username = options.username ?? "deerflow_test_bot";
  const updates: object[] = [];
  const files = new Map<string, { path: string; data: Buffer }>();
  const sent: TelegramSentMessage[] = [];
  const documents: TelegramSentDocument[] = [];
  const calls: string[] = [];
  const change = new ChangeSignal();
  let nextUpdateId = 1;
  let nextMessageId = 1000;
  let nextFileId = 1;
  let closed = false;

  const message = (chatId: number, text: string | undefined, messageId: number) => ({
    message_id: messageId,
    date: Math.floor(Date.now() / 1000),
    chat: { id: chatId, type: chatId > 0 ? "private" : "group" },
    from: { id: botId, is_bot: true, first_name: "DeerFlow", username },
    ...(text === undefined ? {} : { text }),
  });

  const pendingAfter = (offset: number) =>
    updates.filter((update) => (update as { update_id: number }).update_id >= offset);

  const methods: Record<
    string,
    (params: Record<string, unknown>, parts: MultipartPart[]) => Promise<unknown> | unknown
  > = {
    getMe: () => ({ id: botId, is_bot: true, first_name: "DeerFlow", username }),
    getWebhookInfo: () => ({ url: options.webhookUrl ?? "", has_custom_certificate: false, pending_update_count: 0 }),
    deleteWebhook: () => true,
    async getUpdates(params) {
      const offset = Number(params.offset ?? 0);
      const timeoutMs = Number(params.timeout ?? 0) * 1000;
      // Confirmed updates are gone for good, as on Telegram.
      for (let i = updates.length - 1; i >= 0; i--)
        if ((updates[i] as { update_id: number }).update_id < offset) updates.splice(i, 1);
      const deadline = Date.now() + timeoutMs;
      while (pendingAfter(offset).length === 0 && Date.now() < deadline && !closed)
        await change.next(deadline - Date.now());
      return pendingAfter(offset);
    },
    sendMessage(params) {
      const chatId = Number(params.chat_id);
      const text = String(params.text ?? "");
      if (!text) throw new BotApiError(400, "Bad Request: message text is empty");
      const id = nextMessageId++;
      sent.push({ chat_id: chatId, message_id: id, texts: [text] });
      return message(chatId, text, id);
    },
    editMessageText(params) {
      const chatId = Number(params.chat_id);
      const found = sent.find((item) => item.chat_id === chatId && item.message_id === Number(params.message_id));
      if (!found) throw new BotApiError(400, "Bad Request: message to edit not found");
      const text = String(params.text ?? "");
      if (text === found.texts.at(-1))
        throw new BotApiError(
          400,
          "Bad Request: message is not modified: specified new message content and reply markup are exactly the same",
        );
      found.texts.push(text);
      return message(chatId, text, found.message_id);
    },
    sendDocument(params, parts) {
      // A client may send the file as the field itself or as a part the field names by `attach://<part>`.
      const field = params.document;
      const partName = typeof field === "string" && field.startsWith("attach://") ? field.slice(9) : "document";
      const document = parts.find((part) => part.name === partName && part.filename !== undefined);
      if (!document) throw new BotApiError(400, "Bad Request: there is no document in the request");
      const chatId = Number(params.chat_id);
      documents.push({ chat_id: chatId, filename: document.filename!, data: document.data });
      return message(chatId, undefined, nextMessageId++);
    },
    getFile(params) {
      const fileId = String(params.file_id);
      const file = files.get(fileId);
      if (!file) throw new BotApiError(400, "Bad Request: invalid file_id");
      return { file_id: fileId, file_unique_id: fileId, file_size: file.data.length, file_path: file.path };
    },
    sendChatAction: () => true,
  };

  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ ok: false, error_code: 500, description: (error as Error).message }));
    });
  });

  const answer = (response: http.ServerResponse, status: number, body: object) => {
    response.writeHead(status, { "content-type": "application/json" });
    void deliver(response, Buffer.from(JSON.stringify(body)));
  };

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download) {
      const file = [...files.values()].find((item) => item.path === download[2]);
      if (download[1] !== token || !file)
        return answer(response, 404, { ok: false, error_code: 404, description: "Not Found" });
      response.writeHead(200, { "content-type": "application/octet-stream" });
      return void deliver(response, file.data);
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!call) return answer(response, 404, { ok: false, error_code: 404, description: "Not Found" });
    if (call[1] !== token) return answer(response, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = methods[call[2]!];
    calls.push(call[2]!);
    if (!method)
      return answer(response, 404, { ok: false, error_code: 404, description: `Not Found: method ${call[2]}` });
    const { params, parts } = await readParams(request, url);
    try {
      const result = await method(params, parts);
      answer(response, 200, { ok: true, result });
    } catch (error) {
      if (!(error instanceof BotApiError)) throw error;
      answer(response, error.status, { ok: false, error_code: error.status, description: error.message });
    } finally {
      change.fire();
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    token,
    sent,
    documents,
    calls,
    userSends(chatId, from, text, document) {
      const incoming: Record<string, unknown> = {
        message_id: nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: chatId > 0 ? "private" : "group" },
        from: { is_bot: false, first_name: from.first_name ?? "Tester", ...from },
      };
      if (document) {
        const fileId = `file-${nextFileId++}`;
        files.set(fileId, { path: `documents/${fileId}-${document.name}`, data: document.data });
        incoming.document = {
          file_id: fileId,
          file_unique_id: fileId,
          file_name: document.name,
          file_size: document.data.length,
        };
        incoming.caption = text;
      } else incoming.text = text;
      updates.push({ update_id: nextUpdateId++, message: incoming });
      change.fire();
    },
    until: (what, check) => change.until(what, check, UNTIL_LIMIT_MS),
    async close() {
      closed = true;
      change.fire();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Bot API refusal: `{ok: false, error_code, description}`. */
class BotApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The call's parameters: query string, JSON body, or multipart form (file parts stay in `parts`). */
async function readParams(
  request: http.IncomingMessage,
  url: URL,
): Promise<{ params: Record<string, unknown>; parts: MultipartPart[] }> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const type = request.headers["content-type"] ?? "";
  if (body.length === 0) return { params, parts: [] };
  if (type.includes("application/json"))
    return { params: { ...params, ...(JSON.parse(body.toString("utf8")) as object) }, parts: [] };
  if (type.includes("multipart/form-data")) {
    const parts = readMultipart(body, type);
    for (const part of parts) if (part.filename === undefined) params[part.name] = part.data.toString("utf8");
    return { params, parts };
  }
  return { params: { ...params, ...Object.fromEntries(new URLSearchParams(body.toString("utf8"))) }, parts: [] };
}

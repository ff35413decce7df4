/**
 * A stand-in for Slack on loopback, both directions, so channel tests run the real `@slack/web-api`
 * client without the real platform (point it here with `slackApiUrl`).
 *
 * As Slack's Web API it answers `auth.test`, `chat.postMessage`, `chat.update` and the external upload
 * flow `files.uploadV2` uses (`files.getUploadURLExternal`, a POST of the bytes to the upload URL,
 * `files.completeUploadExternal`), checks the bot token, and serves files users "shared" at private
 * URLs that need the token. As Slack's Events API it delivers events to an app's request URL, signed
 * with the signing secret (v0 HMAC-SHA256 of `v0:{timestamp}:{body}`), or signed wrongly on request.
 * Its answers go out in pieces, as over a network (`network-delivery.ts`).
 */
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ChangeSignal } from "./change-signal.js";
import { readMultipart } from "./multipart.js";
import { deliver as deliverInPieces } from "./network-delivery.js";

/** A message the app posted, with every text it was updated to (the first entry is the posted text). */
export interface SlackPostedMessage {
  channel: string;
  ts: string;
  texts: string[];
}

/** A file the app uploaded and shared in a channel. */
export interface SlackUploadedFile {
  channel: string;
  filename: string;
  data: Buffer;
}

/** Options of `startSlackStandIn`. */
export interface SlackStandInOptions {
  /** The bot token the app must use (default "xoxb-test-token"). */
  botToken?: string;
  /** The signing secret events are signed with (default 32 hex characters). */
  signingSecret?: string;
}

/** A running stand-in. */
export interface SlackStandIn {
  /** The value for `slackApiUrl` (and `channels.slack.api_url`), ending in `/api/`. */
  apiUrl: string;
  botToken: string;
  signingSecret: string;
  /** The bot's own user id (as auth.test reports it). */
  botUserId: string;
  posted: SlackPostedMessage[];
  files: SlackUploadedFile[];
  /** Web API method names in arrival order. */
  calls: string[];
  /** Keeps a file a user shares; returns how a message event describes it. */
  shareFile(name: string, data: Buffer): Record<string, unknown>;
  /**
   * Delivers a user's message to the app's events URL as Slack does (signed; `badSignature` signs with
   * another secret). Returns the app's HTTP answer.
   */
  deliverMessage(
    eventsUrl: string,
    message: { channel: string; user: string; text: string; files?: Record<string, unknown>[] },
    options?: { badSignature?: boolean },
  ): Promise<{ status: number; body: unknown }>;
  /** Sends a signed `url_verification` request; returns the app's answer. */
  verifyUrl(eventsUrl: string, challenge: string): Promise<{ status: number; body: unknown }>;
  until<T>(what: string, check: () => T | undefined): Promise<T>;
  close(): Promise<void>;
}

/** Longest a test waits in `until` before failing with what it waited for. */
const UNTIL_LIMIT_MS = 30_000;

/** The headers Slack signs a request body with. */
export function slackSignatureHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
  return { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": signature };
}

/** Starts the stand-in on an OS-chosen loopback port. */
export async function startSlackStandIn(options: SlackStandInOptions = {}): Promise<SlackStandIn> {
  const botToken = options.botToken ?? "xoxb-test-token";
  const signingSecret = options.signingSecret ?? "8f742231b10e8888abcd99yyyzzz85a5";
  const botUserId = "UBOT0001";
  const posted: SlackPostedMessage[] = [];
  const files: SlackUploadedFile[] = [];
  const calls: string[] = [];
  const shared = new Map<string, Buffer>();
  const pendingUploads = new Map<string, { filename: string; data?: Buffer }>();
  const change = new ChangeSignal();
  let clock = 1_700_000_000;
  let nextId = 1;
  let origin = "";

  const methods: Record<string, (params: Record<string, string>) => object> = {
    "auth.test": () => ({
      user_id: botUserId,
      user: "deerflow",
      team_id: "T0TEST",
      team: "Test Workspace",
      bot_id: "B0TEST",
    }),
    "chat.postMessage": (params) => {
      const ts = `${clock++}.000100`;
      posted.push({ channel: params.channel!, ts, texts: [params.text ?? ""] });
      return { channel: params.channel, ts, message: { text: params.text, ts } };
    },
    "chat.update": (params) => {
      const found = posted.find((item) => item.channel === params.channel && item.ts === params.ts);
      if (!found) throw new SlackApiError("message_not_found");
      found.texts.push(params.text ?? "");
      return { channel: params.channel, ts: params.ts, text: params.text };
    },
    "files.getUploadURLExternal": (params) => {
      const fileId = `F${nextId++}`;
      pendingUploads.set(fileId, { filename: params.filename ?? "file" });
      return { upload_url: `${origin}/upload/${fileId}`, file_id: fileId };
    },
    "files.completeUploadExternal": (params) => {
      const list = JSON.parse(params.files ?? "[]") as Array<{ id: string; title?: string }>;
      for (const { id } of list) {
        const upload = pendingUploads.get(id);
        if (!upload?.data) throw new SlackApiError("file_not_found");
        files.push({ channel: params.channel_id ?? "", filename: upload.filename, data: upload.data });
      }
      return { files: list.map(({ id, title }) => ({ id, title })) };
    },
  };

  const answer = (response: http.ServerResponse, status: number, body: object) => {
    response.writeHead(status, { "content-type": "application/json" });
    void deliverInPieces(response, Buffer.from(JSON.stringify(body)));
  };

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const body = await readBody(request);
    const authorized = request.headers.authorization === `Bearer ${botToken}`;
    const upload = /^\/upload\/(F\d+)$/.exec(url.pathname);
    if (upload) {
      const pending = pendingUploads.get(upload[1]!);
      if (!pending) return answer(response, 404, { ok: false, error: "upload_not_found" });
      pending.data = uploadedBytes(body, request.headers["content-type"] ?? "");
      response.writeHead(200, { "content-type": "text/plain" });
      return void deliverInPieces(response, Buffer.from(`OK - ${pending.data.length}`));
    }
    const download = /^\/files-pri\/(F\d+)$/.exec(url.pathname);
    if (download) {
      const data = shared.get(download[1]!);
      if (!authorized || !data) return answer(response, 404, { ok: false, error: "file_not_found" });
      response.writeHead(200, { "content-type": "application/octet-stream" });
      return void deliverInPieces(response, data);
    }
    const call = /^\/api\/([a-zA-Z.]+)$/.exec(url.pathname);
    if (!call) return answer(response, 404, { ok: false, error: "unknown_method" });
    calls.push(call[1]!);
    if (!authorized) return answer(response, 200, { ok: false, error: "invalid_auth" });
    const method = methods[call[1]!];
    if (!method) return answer(response, 200, { ok: false, error: "unknown_method" });
    try {
      answer(response, 200, { ok: true, ...method(formParams(body, request.headers["content-type"] ?? "")) });
    } catch (error) {
      if (!(error instanceof SlackApiError)) throw error;
      answer(response, 200, { ok: false, error: error.message });
    } finally {
      change.fire();
    }
  }

  const server = http.createServer((request, response) => {
    void handle(request, response).catch((error) =>
      answer(response, 500, { ok: false, error: (error as Error).message }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const deliver = async (eventsUrl: string, payload: object, secret: string) => {
    const body = JSON.stringify(payload);
    const response = await fetch(eventsUrl, {
      method: "POST",
      headers: { "content-type": "application/json", ...slackSignatureHeaders(secret, body) },
      body,
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
  };

  return {
    apiUrl: `${origin}/api/`,
    botToken,
    signingSecret,
    botUserId,
    posted,
    files,
    calls,
    shareFile(name, data) {
      const id = `F${nextId++}`;
      shared.set(id, data);
      return {
        id,
        name,
        size: data.length,
        url_private: `${origin}/files-pri/${id}`,
        url_private_download: `${origin}/files-pri/${id}`,
      };
    },
    deliverMessage(eventsUrl, message, deliverOptions = {}) {
      const event = {
        type: "message",
        ...(message.files ? { subtype: "file_share", files: message.files } : {}),
        channel: message.channel,
        user: message.user,
        text: message.text,
        ts: `${clock++}.000200`,
        channel_type: message.channel.startsWith("D") ? "im" : "channel",
      };
      const payload = {
        type: "event_callback",
        team_id: "T0TEST",
        event_id: `Ev${nextId++}`,
        event_time: clock,
        event,
      };
      return deliver(eventsUrl, payload, deliverOptions.badSignature ? "not-the-signing-secret" : signingSecret);
    },
    verifyUrl: (eventsUrl, challenge) =>
      deliver(eventsUrl, { type: "url_verification", token: "x", challenge }, signingSecret),
    until: (what, check) => change.until(what, check, UNTIL_LIMIT_MS),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Web API refusal: HTTP 200 with `{ok: false, error}`, as Slack answers. */
class SlackApiError extends Error {}

async function readBody(request: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Web API parameters: a form (the SDK's default) or JSON; objects come JSON-encoded in a form. */
function formParams(body: Buffer, type: string): Record<string, string> {
  if (type.includes("application/json")) {
    const parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(parsed).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]),
    );
  }
  return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
}

/** The bytes posted to an upload URL: the raw body, or the file part of a multipart body. */
function uploadedBytes(body: Buffer, type: string): Buffer {
  if (!type.includes("multipart/form-data")) return body;
  return readMultipart(body, type).find((part) => part.filename !== undefined)?.data ?? Buffer.alloc(0);
}

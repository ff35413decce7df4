/**
 * What every chat platform shares: a message from a chat becomes a run on the chat's thread, as the
 * server's owner (the first admin, or the home's local user while accounts are off). Files sent with it
 * are stored as the thread's uploads (the upload route's code) and named in the message, so the model
 * is told about them. The answer streams into a LiveMessage; files the run presents (new entries of
 * the thread's `artifacts`) are sent back. `/new` points the chat at a fresh thread.
 *
 * Messages of one chat are handled one after another, so answers never interleave.
 */
import { cleanUploadName, PathPolicy, readFileChecked, threadUserDataDir } from "@deerflow/harness";
import { userCaller } from "../auth/authenticate.js";
import { type Caller, LOCAL_CALLER } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { storeUploads } from "../routes/uploads.js";
import { createRun, TERMINAL } from "../runs/create-run.js";
import { GRAPH_ID } from "../runs/assistants.js";
import { uuid7 } from "../runs/ids.js";
import { LiveMessage, type MessageSink, splitMessage } from "./live-message.js";
import { ThreadMap } from "./thread-map.js";
import type { OutgoingFile } from "./types.js";

/** Largest presented file sent back (Telegram bots may send at most 50 MB). */
export const MAX_RETURNED_FILE_BYTES = 50 * 1024 * 1024;

/** A message that arrived from a chat. */
export interface IncomingMessage {
  /** `telegram:<chat id>` or `slack:<channel id>`: the key of the chat's thread. */
  chat: string;
  text: string;
  files: File[];
}

/** How to answer in the chat the message came from. */
export interface ChatReply extends MessageSink {
  sendFile(name: string, data: Buffer): Promise<void>;
  /** Least time between two edits of one message, in ms. */
  editIntervalMs: number;
}

/** The shared engine of the channels. */
export class Conversations {
  private readonly threads: ThreadMap;
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly context: ServerContext) {
    this.threads = new ThreadMap(context.harness.home);
  }

  /** Queues a message behind the chat's earlier ones; errors are answered in the chat and logged. */
  receive(message: IncomingMessage, reply: ChatReply): Promise<void> {
    const previous = this.queues.get(message.chat) ?? Promise.resolve();
    const next = previous.then(() => this.handle(message, reply)).catch((error) => this.failed(error, reply));
    this.queues.set(message.chat, next);
    void next.then(() => {
      if (this.queues.get(message.chat) === next) this.queues.delete(message.chat);
    });
    return next;
  }

  private async handle(message: IncomingMessage, reply: ChatReply): Promise<void> {
    const command = message.text.trim().split(/\s+/)[0]?.replace(/@\S+$/, "");
    if (command === "/new") {
      await this.threads.set(message.chat, uuid7());
      await reply.send("Started a new conversation.");
      return;
    }
    if (command === "/start" && message.files.length === 0) {
      await reply.send("Hello! Send me a message to start. /new starts a fresh conversation.");
      return;
    }
    // A sticker, a location or a poll carries neither text nor a file: nothing to ask the agent.
    if (!message.text.trim() && message.files.length === 0) return;
    const caller = await this.owner();
    const threadId = await this.threadFor(message.chat, caller);
    const before = new Set(await this.artifacts(threadId));
    const uploads = await this.storeFiles(caller, threadId, message.files);
    const live = new LiveMessage(reply, reply.editIntervalMs, this.context.options.log);
    const text = await this.run(caller, threadId, message.text, uploads, live);
    await live.finish(text);
    for (const artifact of (await this.artifacts(threadId)).filter((item) => !before.has(item)))
      await this.sendArtifact(threadId, artifact, reply);
  }

  /** The first admin, or the home's local user while accounts are off. */
  private async owner(): Promise<Caller> {
    const admin = await this.context.users.firstAdmin();
    return admin ? userCaller(admin, "key") : LOCAL_CALLER;
  }

  private async threadFor(chat: string, caller: Caller): Promise<string> {
    let threadId = await this.threads.get(chat);
    if (!threadId) {
      threadId = uuid7();
      await this.threads.set(chat, threadId);
    }
    const [platform] = chat.split(":");
    await this.context.threads.create(threadId, { channel: platform, channel_chat: chat }, "do_nothing", caller.userId);
    return threadId;
  }

  private async storeFiles(caller: Caller, threadId: string, files: File[]): Promise<Record<string, unknown>[]> {
    const accepted: Array<{ file: File; name: string }> = [];
    for (const file of files) {
      const name = cleanUploadName(file.name);
      if (typeof name === "string") accepted.push({ file, name });
    }
    return accepted.length > 0 ? storeUploads(this.context, caller, threadId, accepted) : [];
  }

  /** Runs the message on the thread, streaming the answer into `live`; returns the final answer. */
  private async run(
    caller: Caller,
    threadId: string,
    text: string,
    uploads: Record<string, unknown>[],
    live: LiveMessage,
  ): Promise<string> {
    const content = text.trim() || (uploads.length > 0 ? "(files attached)" : "");
    const { run } = await createRun(this.context, caller, threadId, {
      assistant_id: GRAPH_ID,
      input: {
        messages: [{ type: "human", content, additional_kwargs: uploads.length > 0 ? { files: uploads } : {} }],
      },
      stream_mode: ["messages-tuple"],
      multitask_strategy: "enqueue",
    });
    const answers = new Map<string, string>();
    let current = "";
    const controller = new AbortController();
    for await (const event of this.context.events.follow(run.run_id, "-1", controller.signal)) {
      if ("gap" in event || event.event !== "messages") continue;
      const [chunk] = JSON.parse(event.data) as [Record<string, unknown>];
      if (!isAiMessage(chunk)) continue;
      const id = String(chunk.id ?? "");
      answers.set(id, (answers.get(id) ?? "") + textOf(chunk.content));
      current = answers.get(id)!;
      live.update(current);
    }
    return this.finalAnswer(run.run_id, threadId, current);
  }

  /** The run's last AI message from the saved state (what the stream showed if the state has none). */
  private async finalAnswer(runId: string, threadId: string, streamed: string): Promise<string> {
    let run = await this.context.runs.get(runId);
    while (run && !TERMINAL.has(run.status)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await this.context.runs.get(runId);
    }
    if (run?.status === "error")
      return `Sorry, the run failed: ${run.kwargs.error?.message ?? "unknown error"}. Send the message again to retry.`;
    if (run?.status === "interrupted") return `${streamed}\n\n(The run was stopped.)`.trim();
    const thread = await this.context.threads.get(threadId);
    const messages = (thread?.values?.messages ?? []) as Record<string, unknown>[];
    const last = messages.at(-1);
    return last && isAiMessage(last) ? textOf(last.content) || streamed : streamed;
  }

  private async artifacts(threadId: string): Promise<string[]> {
    const thread = await this.context.threads.get(threadId);
    const list = thread?.values?.artifacts;
    return Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : [];
  }

  private async sendArtifact(threadId: string, virtualPath: string, reply: ChatReply): Promise<void> {
    const policy = new PathPolicy({ userDataDir: threadUserDataDir(this.context.harness.home, threadId) });
    const target = policy.resolve(virtualPath, "read");
    const name = virtualPath.split("/").at(-1) ?? "file";
    if (!target.ok) {
      this.context.options.log(`channels: not sending ${virtualPath}: ${target.error}`);
      return;
    }
    const { data, size } = await readFileChecked(policy, target, MAX_RETURNED_FILE_BYTES + 1);
    if (size > MAX_RETURNED_FILE_BYTES) {
      await reply.send(`${name} is ${size} bytes, too large to send here; open it in the web app.`);
      return;
    }
    await reply.sendFile(name, data);
  }

  private async failed(error: unknown, reply: ChatReply): Promise<void> {
    const reason = (error as Error).message;
    this.context.options.log(`channels: a message could not be answered: ${reason}`);
    await reply.send(`Sorry, that message could not be answered: ${reason}`).catch(() => {});
  }
}

function isAiMessage(message: Record<string, unknown>): boolean {
  return message.type === "ai" || message.type === "AIMessageChunk";
}

/** The text of a message's content: a string, or the text parts of a list. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      part && typeof part === "object" && (part as { type?: unknown }).type === "text"
        ? String((part as { text?: unknown }).text ?? "")
        : "",
    )
    .join("");
}

/** Sends text (split at the platform's limit) and then files through a reply. */
export async function postTo(reply: ChatReply, text: string, files: readonly OutgoingFile[]): Promise<void> {
  if (text.trim()) for (const piece of splitMessage(text, reply.maxLength)) await reply.send(piece);
  for (const file of files) await reply.sendFile(file.name, Buffer.from(file.data));
}

/**
 * agent-chat-ui's conversation actions (langchain-ai/agent-chat-ui at fdc87e65, `useStream` of
 * @langchain/langgraph-sdk 1.8), replayed through the official SDK's own `useStream` core
 * (`StreamOrchestrator` from `@langchain/langgraph-sdk/ui`, the framework-free part of the hook): it
 * fetches `POST /threads/{id}/history {limit: 10}` (`fetchStateHistory: true`), finds each message's
 * `firstSeenState` and branches the way the hook does, and sends the runs. The calls are the client's:
 * - send (`thread/index.tsx`): a human message with a client id and a text block, on the head of the
 *   branch in view (SDK 1.8 sends that head's checkpoint with every new message);
 * - regenerate (`messages/ai.tsx`): no input, `checkpoint` = the `parent_checkpoint` of the first
 *   history state that shows the answer;
 * - edit (`messages/human.tsx`): the edited message without an id, `checkpoint` = the
 *   `parent_checkpoint` of the first history state that shows the original message.
 * Every request is recorded, so tests assert the exact sequence as well as what the user then sees.
 */
import assert from "node:assert/strict";
import { Client, type Message } from "@langchain/langgraph-sdk";
import { StreamOrchestrator } from "@langchain/langgraph-sdk/ui";
import { type TestServerOptions, until } from "./helpers.js";

/** One request the client made. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

type Values = { messages?: Message[] };

/** The text of a message as the chat shows it. */
export function textOf(message: Message): string {
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  return (content as { type: string; text?: string }[])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/** An open agent-chat-ui page. */
export type AgentChatUi = Awaited<ReturnType<typeof agentChatUi>>;

/**
 * An agent-chat-ui page on `url`, optionally opened on an existing thread.
 *
 * @example
 * const ui = await agentChatUi(t.url);
 * await ui.send("hello");
 * await ui.regenerate(ui.messages().at(-1)!);
 */
export async function agentChatUi(url: string, threadId?: string) {
  const requests: RecordedRequest[] = [];
  const errors: unknown[] = [];
  const client = new Client({
    apiUrl: url,
    apiKey: null,
    onRequest: (target, init) => {
      const body = typeof init.body === "string" ? (JSON.parse(init.body) as Record<string, unknown>) : null;
      requests.push({ method: init.method ?? "GET", path: target.pathname, body });
      return init;
    },
  });
  const stream = new StreamOrchestrator<Values>(
    { assistantId: "lead_agent", fetchStateHistory: true, onError: (error) => void errors.push(error) },
    { getClient: () => client, getAssistantId: () => "lead_agent", getMessagesKey: () => "messages" },
  );
  stream.initThreadId(threadId);
  await until(() => !stream.isThreadLoading, 10_000, "the thread's history");
  const options = { streamMode: ["values" as const], streamSubgraphs: true, streamResumable: true };
  const firstSeen = (message: Message) => {
    const seen = stream.getMessagesMetadata(message)?.firstSeenState;
    if (!seen) throw new Error(`message ${message.id} is in no history state the client fetched`);
    return seen;
  };
  return {
    requests,
    /** Errors the client reported (a failed run shows as a toast). */
    errors,
    stream,
    /** The messages on screen. */
    messages: () => stream.messages as Message[],
    /** The conversation on screen as `type: text` lines. */
    transcript: () => (stream.messages as Message[]).map((message) => `${message.type}: ${textOf(message)}`),
    /** The branch picker under a message: its options (undefined: no picker). */
    branchOptions: (message: Message) => stream.getMessagesMetadata(message)?.branchOptions,
    async send(text: string) {
      const message = { id: crypto.randomUUID(), type: "human", content: [{ type: "text", text }] } as Message;
      await stream.submit(
        { messages: [message] },
        { ...options, checkpoint: stream.branchContext.threadHead?.checkpoint },
      );
    },
    async regenerate(answer: Message) {
      // `stream.submit(undefined, ...)` in agent-chat-ui: the body carries no `input`.
      await stream.submit(undefined as unknown as Values, {
        ...options,
        checkpoint: firstSeen(answer).parent_checkpoint,
      });
    },
    async edit(human: Message, text: string) {
      const seen = firstSeen(human);
      const edited = { type: "human", content: text } as Message;
      await stream.submit(
        { messages: [edited] },
        {
          ...options,
          checkpoint: seen.parent_checkpoint,
          optimisticValues: () => ({ ...seen.values, messages: [...(seen.values.messages ?? []), edited] }),
        },
      );
    },
    close: () => stream.dispose(),
  };
}

/** A fake model whose every answer is numbered, so a regenerated answer differs from the one it replaces. */
export function numberedAnswers(): TestServerOptions["script"] {
  let answers = 0;
  return (body) => {
    const user = [...body.messages].reverse().find((message) => message.role === "user");
    const text = typeof user?.content === "string" ? user.content : textOf(user as unknown as Message);
    return { content: `answer ${++answers} to ${text}` };
  };
}

/** Every `parent_checkpoint` in the thread's whole history that names a checkpoint it does not have. */
export async function danglingParents(client: Client, threadId: string): Promise<string[]> {
  const history = await client.threads.getHistory(threadId, { limit: 1000 });
  const ids = new Set(history.map((state) => state.checkpoint.checkpoint_id));
  return history
    .map((state) => state.parent_checkpoint?.checkpoint_id)
    .filter((parent): parent is string => parent != null && !ids.has(parent));
}

/** Two turns in agent-chat-ui, as a user types them. */
export async function twoTurns(url: string) {
  const ui = await agentChatUi(url);
  await ui.send("first question");
  await ui.send("second question");
  assert.deepEqual(ui.transcript(), [
    "human: first question",
    "ai: answer 1 to first question",
    "human: second question",
    "ai: answer 2 to second question",
  ]);
  return { ui, threadId: ui.stream.threadId! };
}

/**
 * One turn of a real lead agent against a fake provider server, through the real provider client:
 * either invoked (the model is called non-streamed, as `deerflow run` and `runs/wait` do) or streamed
 * with the `messages` mode (the model is called streamed, as `runs/stream` does).
 */
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { createLeadAgent } from "../../src/agent/create-lead-agent.js";
import { parseConfigText } from "../../src/config/load-config.js";
import { tempHome, type TestContextLike } from "../../src/testing/index.js";

/** What the turn left: the final messages, the streamed tokens, the retry events, or the error. */
export interface TurnResult {
  messages: BaseMessage[];
  /** The last AI message. */
  answer: AIMessage | undefined;
  /** Text of the AI message chunks the `messages` mode sent (streamed turns). */
  tokens: string;
  retries: Record<string, unknown>[];
  error?: Error;
  /** The thread's user-data folder on the host. */
  userData: string;
}

/**
 * Runs "go" through a lead agent whose only model is `entry` (a YAML flow mapping without braces,
 * e.g. `name: m, use: anthropic, ...`), `streamed` or invoked. `extra` is appended to the config.
 */
export async function providerTurn(
  t: TestContextLike,
  entry: string,
  options: { streamed: boolean; extra?: string },
): Promise<TurnResult> {
  const home = tempHome(t);
  const config = parseConfigText(
    `models:\n  - {${entry}}\nmemory: {enabled: false}\ntitle: {enabled: false}\n` +
      `sandbox: {use: local, write_file_max_bytes: 0}\nllm_call: {retry_base_delay_ms: 20, retry_cap_delay_ms: 40}\n${options.extra ?? ""}`,
    { source: "config.yaml", env: {} },
  );
  const agent = await createLeadAgent(config, { home, env: {}, onWarning: () => {} });
  const input = { messages: [{ role: "user", content: "go" }] };
  const configurable = { configurable: { thread_id: "t" } };
  const result: TurnResult = { messages: [], answer: undefined, tokens: "", retries: [], userData: "" };
  try {
    if (options.streamed) {
      const stream = await agent.stream(input, { ...configurable, streamMode: ["messages", "custom", "values"] });
      for await (const [mode, chunk] of stream as AsyncIterable<[string, any]>) {
        if (mode === "values") result.messages = chunk.messages;
        if (mode === "custom" && chunk.type === "llm_retry") result.retries.push(chunk);
        if (mode === "messages" && chunk[0]?.type === "ai" && typeof chunk[0].content === "string")
          result.tokens += chunk[0].content;
      }
    } else {
      result.messages = (await agent.invoke(input, configurable)).messages;
    }
  } catch (error) {
    result.error = error as Error;
  } finally {
    await agent.close();
    result.userData = `${home}/threads/t/user-data`;
  }
  result.answer = result.messages.filter((m) => m.type === "ai").at(-1) as AIMessage | undefined;
  return result;
}

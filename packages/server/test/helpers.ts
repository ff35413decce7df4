/**
 * Test kit: a real server on an OS-chosen port over a real harness whose model is the fake OpenAI
 * server, in a temp home. Tests drive it with the official SDK Client or fetch.
 */
import { type AppConfig, createHarness, type Harness, parseConfigText } from "@deerflow/harness";
import {
  createTempHome,
  type FakeOpenAIServerOptions,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
  type TempHome,
} from "@deerflow/harness/testing";
import { Client } from "@langchain/langgraph-sdk";
import { createServer, type DeerFlowServer, type ServerOptions } from "../src/index.js";

/** A running test server and everything behind it. */
export interface TestServer {
  url: string;
  client: Client;
  server: DeerFlowServer;
  harness: Harness;
  fake: FakeOpenAIServer;
  home: TempHome;
  config: AppConfig;
  logs: string[];
  /** Stops the server and harness (keeps home and the fake model), for restart tests. */
  stopServer(): Promise<void>;
  /** Starts a new server and harness on the same home and model. */
  restart(options?: ServerOptions): Promise<TestServer>;
  close(): Promise<void>;
}

/** Options of `startTestServer`. */
export interface TestServerOptions extends ServerOptions {
  script?: FakeOpenAIServerOptions["script"];
  /** How the fake model's bodies go on the wire (e.g. slower, to stream an answer over time). */
  delivery?: FakeOpenAIServerOptions["delivery"];
  /** Extra YAML appended to the config. */
  yaml?: string;
  apiKey?: string;
  /** Generate titles (off by default: each title is one more model call). */
  titles?: boolean;
  /** More `models:` entries (YAML flow mappings) after the fake model. */
  extraModels?: string[];
  /** The harness's environment (default empty), e.g. DEER_FLOW_EXTENSIONS_CONFIG_PATH. */
  harnessEnv?: Record<string, string>;
}

/** Starts the fake model and the server. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const fake = await startFakeOpenAIServer({
    script: options.script ?? (() => ({ content: "Hello from the fake model." })),
    delivery: options.delivery,
  });
  const home = createTempHome();
  return boot(fake, home, options);
}

async function boot(fake: FakeOpenAIServer, home: TempHome, options: TestServerOptions): Promise<TestServer> {
  const config = parseConfigText(
    [
      "models:",
      `  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
      ...(options.extraModels ?? []).map((entry) => `  - ${entry}`),
      "sandbox: {use: local}",
      /^memory:/m.test(options.yaml ?? "") ? "" : "memory: {enabled: false}",
      `title: {enabled: ${options.titles ? "true" : "false"}}`,
      options.yaml ?? "",
    ].join("\n"),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home: home.path, env: options.harnessEnv ?? {}, onWarning: () => {} });
  const logs: string[] = [];
  const server = createServer(harness, {
    env: {},
    heartbeatMs: 1000,
    drainGraceMs: 2000,
    log: (line) => logs.push(line),
    // run-threads.test.ts runs the runs, streaming and human-in-the-loop files again with worker threads.
    ...(process.env.DEERFLOW_TEST_RUN_WORKERS ? { runWorkers: Number(process.env.DEERFLOW_TEST_RUN_WORKERS) } : {}),
    ...options,
  });
  const { url } = await server.start({ host: "127.0.0.1", port: 0 });
  const client = new Client({ apiUrl: url, apiKey: options.apiKey ?? null, defaultHeaders: {} });
  let stopped = false;
  const stopServer = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    await harness.close();
  };
  return {
    url,
    client,
    server,
    harness,
    fake,
    home,
    config,
    logs,
    stopServer,
    restart: async (more = {}) => {
      await stopServer();
      return boot(fake, home, { ...options, ...more });
    },
    close: async () => {
      await stopServer();
      await fake.close();
      home.cleanup();
    },
  };
}

/** Collects every part of an SDK stream. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const part of stream) out.push(part);
  return out;
}

/** Waits until `predicate` holds (polling), or fails after `ms`. */
export async function until(
  predicate: () => Promise<boolean> | boolean,
  ms = 10_000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** A promise the test opens when it wants a blocked model call to answer. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** The last user message text of a chat-completions request. */
export function lastUserText(body: { messages: Array<{ role: string; content?: unknown }> }): string {
  const user = [...body.messages].reverse().find((message) => message.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content ?? "");
}

/** Reads an SSE response body as raw text until `predicate(text)` holds or the body ends. */
export async function readSse(response: Response, predicate: (text: string) => boolean = () => false): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (predicate(text)) {
      await reader.cancel();
      break;
    }
  }
  return text;
}

/** Parses raw SSE text into frames (comments dropped). */
export function parseSse(text: string): { event?: string; data?: string; id?: string }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "" && !block.startsWith(":"))
    .map((block) => {
      const frame: { event?: string; data?: string; id?: string } = {};
      for (const line of block.split("\n")) {
        const at = line.indexOf(": ");
        const key = line.slice(0, at);
        const value = line.slice(at + 2);
        if (key === "event" || key === "data" || key === "id") frame[key] = value;
      }
      return frame;
    });
}

/**
 * Test kit: a real server on an OS-chosen port over a real harness whose model is the fake OpenAI
 * server, in a temp home. Tests drive it with the official SDK Client or fetch.
 */
import { type AppConfig, createHarness, type Harness, parseConfigText } from "@deerflow/harness";
import { createTempHome, type FakeOpenAIServerOptions, type FakeOpenAIServer, startFakeOpenAIServer, type TempHome } from "@deerflow/harness/testing";
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
  /** Extra YAML appended to the config. */
  yaml?: string;
  apiKey?: string;
}

/** Starts the fake model and the server. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const fake = await startFakeOpenAIServer({ script: options.script ?? (() => ({ content: "Hello from the fake model." })) });
  const home = createTempHome();
  return boot(fake, home, options);
}

async function boot(fake: FakeOpenAIServer, home: TempHome, options: TestServerOptions): Promise<TestServer> {
  const config = parseConfigText(
    [
      "models:",
      `  - {name: fake, use: openai, model: fake-model, api_key: x, base_url: '${fake.url}', max_retries: 0}`,
      "sandbox: {use: local}",
      "memory: {enabled: false}",
      "title: {enabled: false}",
      options.yaml ?? "",
    ].join("\n"),
    { source: null, env: {} },
  );
  const harness = await createHarness(config, { home: home.path, env: {}, onWarning: () => {} });
  const logs: string[] = [];
  const server = createServer(harness, { env: {}, heartbeatMs: 1000, drainGraceMs: 2000, log: (line) => logs.push(line), ...options });
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
export async function until(predicate: () => Promise<boolean> | boolean, ms = 10_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

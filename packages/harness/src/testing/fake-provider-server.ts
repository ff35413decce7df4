/**
 * The HTTP core the fake provider servers share (OpenAI chat completions, Anthropic Messages, Ollama's
 * `/api/chat`): it plays back a script, records requests, says loudly when the script ran out, and
 * writes every body the way a network delivers it (see network-delivery.ts). A dialect only says how a
 * request looks and how a reply, an error and a never-ending body are spelled on its wire.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import type { FakeErrorReply, FakeReply, FakeStep } from "./fake-script.js";
import { preview } from "./ids.js";
import { deliver, type FakeDeliveryOption } from "./network-delivery.js";

/** A request the server refused or could not answer; `index` points into `requests`. */
export interface FakeServerIncident {
  index: number;
  status: number;
  message: string;
}

/** A rendered response: status, content type and the whole body (a stream's events concatenated). */
export interface FakeResponse {
  status?: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** How one provider's wire looks. `Req` is its request body. */
export interface FakeDialect<Req> {
  /** Names the server in messages, e.g. "Fake OpenAI server". */
  label: string;
  /** The path the script answers (POST), e.g. `/v1/chat/completions`. */
  path: string;
  /** Appended to the origin to make `url`, the value for `base_url`: "/v1" or "". */
  basePath: string;
  /** Checks a parsed body; throws with what is wrong. */
  parse(json: unknown): Req;
  /** The role and text of the last message, for the "no reply" message. */
  lastMessage(body: Req): { role: string; text: string } | undefined;
  /** True when the client asked for a stream. */
  streamed(body: Req): boolean;
  /** The dialect's error response for an HTTP status. */
  error(status: number, error?: FakeErrorReply["error"]): FakeResponse;
  /** The answer to a request; may be an error (a refused request, a non-streamed `stream_error`). */
  reply(reply: FakeReply, body: Req, model: string): FakeResponse;
  /** Checked before the script: a response here refuses the request (listed in `rejected`, uses no step). */
  refuse?(body: Req): { response: FakeResponse; message: string } | undefined;
  /** A 200 that never ends: its content type and what is written every interval. */
  hang(streamed: boolean): { contentType: string; filler: string };
  /** More GET routes, by path (e.g. `/v1/models`). */
  get?: Record<string, (model: string) => object>;
}

/** Options every fake provider server takes. */
export interface FakeProviderServerOptions<Req> {
  /** Steps used in order, or a function of the body and the step index (refused requests use no step). */
  script: FakeStep[] | ((body: Req, index: number) => FakeStep | Promise<FakeStep>);
  /** Model id the server reports. Default "fake". */
  model?: string;
  /**
   * How bodies go on the wire: in small pieces with short pauses, cut inside characters, JSON strings and
   * SSE lines (the default), or `"whole"` for a test that needs one-piece bodies.
   */
  delivery?: FakeDeliveryOption;
  /** Gzip bodies when the request's `accept-encoding` allows it, as providers behind a CDN do. Default false. */
  gzip?: boolean;
}

/** A running fake provider server. */
export interface FakeProviderServer<Req> {
  /** The value for a model entry's `base_url`, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request to the scripted path, parsed, in arrival order. */
  requests: Req[];
  /** Requests the dialect refused before the script (see `refuse`). Assert it is empty to prove none were sent. */
  rejected: FakeServerIncident[];
  /** Requests that found the script exhausted (or whose script function threw), answered 500. */
  unexpected: FakeServerIncident[];
  /** TCP connections accepted so far: fewer than requests means clients reused them (keep-alive). */
  readonly connections: number;
  /** Array steps not used yet (0 for a function script). */
  readonly remaining: number;
  /** Throws when steps remain unused or a request went unanswered by the script. */
  assertDone(): void;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/** Starts a fake server for `dialect` on 127.0.0.1 with an OS-chosen port. */
export async function startFakeProviderServer<Req>(
  dialect: FakeDialect<Req>,
  options: FakeProviderServerOptions<Req>,
): Promise<FakeProviderServer<Req>> {
  const { script, model = "fake", delivery = {}, gzip = false } = options;
  const requests: Req[] = [];
  const rejected: FakeServerIncident[] = [];
  const unexpected: FakeServerIncident[] = [];
  let stepIndex = 0;
  let connections = 0;
  const remainingSteps = () => (typeof script === "function" ? 0 : Math.max(0, script.length - stepIndex));

  async function nextStep(body: Req, index: number): Promise<FakeStep> {
    const i = stepIndex++;
    try {
      if (typeof script === "function") {
        const step = await script(body, i);
        if (!step) throw new Error(`the script function returned ${String(step)} for step ${i}`);
        return step;
      }
      const step = script[i];
      if (step) return step;
      throw new Error(`the script ran out after ${script.length} step(s)`);
    } catch (error) {
      const last = dialect.lastMessage(body);
      const message =
        `${dialect.label}: no reply for request #${index + 1}: ${(error as Error).message}. ` +
        `Last message: (${last?.role ?? "none"}) "${preview(last?.text ?? "")}".`;
      unexpected.push({ index, status: 500, message });
      return { status: 500, error: { message, type: "server_error" } };
    }
  }

  async function send(req: IncomingMessage, res: ServerResponse, response: FakeResponse): Promise<void> {
    let bytes: Uint8Array = Buffer.from(response.body, "utf8");
    const headers: Record<string, string> = { "content-type": response.contentType, ...response.headers };
    if (response.contentType.includes("event-stream")) headers["cache-control"] = "no-cache";
    if (gzip && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
      bytes = gzipSync(bytes);
      headers["content-encoding"] = "gzip";
    }
    res.writeHead(response.status ?? 200, headers);
    await deliver(res, bytes, delivery);
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Req;
    try {
      body = dialect.parse(JSON.parse(await readBody(req)));
    } catch (error) {
      const message = `${dialect.label}: bad request body: ${(error as Error).message}`;
      return send(req, res, dialect.error(400, { message }));
    }
    const index = requests.push(body) - 1;
    const refusal = dialect.refuse?.(body);
    if (refusal) {
      rejected.push({ index, status: refusal.response.status ?? 400, message: refusal.message });
      return send(req, res, refusal.response);
    }
    const step = await nextStep(body, index);
    if ("status" in step) {
      const response = dialect.error(step.status, step.error);
      return send(req, res, { ...response, headers: { ...response.headers, ...step.headers } });
    }
    if ("raw" in step) {
      const { status, contentType = "application/json", body: text } = step.raw;
      return send(req, res, { status, contentType, body: text });
    }
    if ("hang" in step) return hang(res, dialect.hang(dialect.streamed(body)), step.hang.intervalMs ?? 50);
    return send(req, res, dialect.reply(step, body, model));
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const fail = (error: Error) => {
      if (!res.headersSent) void send(req, res, dialect.error(500, { message: error.message }));
      else res.destroy(error);
    };
    const get = dialect.get?.[path];
    if (req.method === "POST" && path === dialect.path) answer(req, res).catch(fail);
    else if (req.method === "GET" && get) send(req, res, json(get(model))).catch(fail);
    else
      send(req, res, dialect.error(404, { message: `${dialect.label}: no route ${req.method} ${path}` })).catch(fail);
  });
  server.on("connection", () => connections++);
  // Never close an idle connection from this side: Node's default (5 s) races a client that reuses the
  // connection at that moment, and the model call fails with UND_ERR_SOCKET (the test configs do not
  // retry). The client closes its idle connections itself; close() ends whatever is left.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${dialect.basePath}`,
    requests,
    rejected,
    unexpected,
    get connections() {
      return connections;
    },
    get remaining() {
      return remainingSteps();
    },
    assertDone() {
      const problems = unexpected.map((u) => u.message);
      const remaining = remainingSteps();
      if (remaining > 0)
        problems.push(`${remaining} scripted step(s) were never requested (${requests.length} request(s) received).`);
      if (problems.length > 0) throw new Error(`${dialect.label} is not done:\n- ${problems.join("\n- ")}`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): FakeResponse {
  return { status, contentType: "application/json", body: JSON.stringify(body), headers };
}

/** The text of message content given as a string or as content parts / blocks. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? "").join(" ");
  return "";
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Starts a 200 and never finishes it; stops writing when the client goes away. */
function hang(res: ServerResponse, how: { contentType: string; filler: string }, intervalMs: number): void {
  res.writeHead(200, { "content-type": how.contentType });
  const timer = setInterval(() => res.write(how.filler), intervalMs);
  res.on("close", () => clearInterval(timer));
}

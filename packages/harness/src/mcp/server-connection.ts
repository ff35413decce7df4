/**
 * The live connection to one MCP server: start it (spawn or HTTP handshake), list its tools, call them,
 * notice when it dies and start it again on the next call.
 *
 * Everything here is bounded: the start by the server's startup deadline (a server that never answers
 * the handshake is killed, not waited for), a call by the tool-call deadline. A server that crashes
 * mid-call rejects that call (the SDK fails pending requests when the transport closes), and the next
 * call reconnects. A stdio server gets only the variables it declares plus a minimal PATH and HOME:
 * the harness's own environment holds model API keys that a third-party program has no business with.
 */
import type { DynamicStructuredTool } from "@langchain/core/tools";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerSpec } from "./server-spec.js";

/** Where a server stands. `failed`: the last start failed (see `error`); `disconnected`: it died after starting. */
export type McpServerState = "idle" | "connecting" | "connected" | "failed" | "disconnected" | "closed";

/** A tool as the server described it (name unprefixed), kept across reconnects. */
export interface McpToolInfo {
  name: string;
  description: string;
  /** JSON schema of the arguments, simplified for models by the adapters. */
  schema: Record<string, unknown>;
}

/** The raw result of a call: content and artifacts as the adapters convert them. */
export type McpCallResult = [unknown, unknown];

const CLIENT_INFO = { name: "deerflow-ts", version: "0.1.0" };

/**
 * The MCP SDK and adapters, loaded on the first connection: about a tenth of a second of start-up that
 * every `deerflow` process without MCP servers would otherwise pay.
 */
let mcpModules:
  | Promise<{
      loadMcpTools: typeof import("@langchain/mcp-adapters").loadMcpTools;
      Client: typeof import("@modelcontextprotocol/sdk/client/index.js").Client;
      SSEClientTransport: typeof import("@modelcontextprotocol/sdk/client/sse.js").SSEClientTransport;
      StdioClientTransport: typeof import("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport;
      StreamableHTTPClientTransport: typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js").StreamableHTTPClientTransport;
    }>
  | undefined;
function loadMcpModules() {
  mcpModules ??= Promise.all([
    import("@langchain/mcp-adapters"),
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]).then(([adapters, client, sse, stdio, http]) => ({
    loadMcpTools: adapters.loadMcpTools,
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  }));
  return mcpModules;
}
const STDERR_TAIL_CHARS = 2000;

/** The environment a stdio server starts with: what it declares, over a minimal PATH and HOME. */
export function stdioEnvironment(spec: McpServerSpec, env: Record<string, string | undefined>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const key of ["PATH", "HOME"]) if (env[key]) base[key] = env[key]!;
  return { ...base, ...spec.env };
}

/** One server's connection. Create with the spec; `connect()` and `call()` are safe to call concurrently. */
export class McpServerConnection {
  readonly spec: McpServerSpec;
  state: McpServerState = "idle";
  /** Why the last start or call failed, for status and messages. */
  error: string | undefined;
  /** The tools of the last successful start (empty before). */
  tools: McpToolInfo[] = [];
  #client: Client | undefined;
  #transport: Transport | undefined;
  #inner = new Map<string, DynamicStructuredTool>();
  #connecting: Promise<void> | undefined;
  #stderr = "";
  #env: Record<string, string | undefined>;

  constructor(spec: McpServerSpec, env: Record<string, string | undefined> = process.env) {
    this.spec = spec;
    this.#env = env;
  }

  /** Starts the server and lists its tools, within the startup deadline. Resolves either way; check `state`. */
  connect(): Promise<void> {
    if (this.state === "connected" || this.state === "closed") return Promise.resolve();
    this.#connecting ??= this.#start().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /**
   * Calls a tool by its server-side name, reconnecting first when the server died. Throws an Error
   * whose message says what went wrong (the service turns it into an error ToolMessage).
   */
  async call(toolName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallResult> {
    if (this.state === "closed") throw new Error(`the MCP server "${this.spec.name}" has been shut down.`);
    if (this.state !== "connected") {
      await this.connect();
      if ((this.state as McpServerState) !== "connected")
        throw new Error(`the MCP server "${this.spec.name}" is not available (${this.error ?? this.state}).`);
    }
    const inner = this.#inner.get(toolName);
    if (!inner) throw new Error(`the MCP server "${this.spec.name}" no longer offers a tool named "${toolName}".`);
    const config = { timeout: this.spec.toolCallTimeoutMs, ...(signal ? { signal } : {}) };
    try {
      return (await inner.func(args, undefined, config)) as McpCallResult;
    } catch (error) {
      const reason = describe(error);
      if (this.state !== "connected") {
        throw new Error(
          `the MCP server "${this.spec.name}" stopped during the call (${this.error ?? reason}). It will be started again on the next call.`,
        );
      }
      throw new Error(reason);
    }
  }

  /** Stops the server (stdio: the process is ended) and keeps it stopped. */
  async close(): Promise<void> {
    this.state = "closed";
    // Dropping first makes a start in progress fail at once instead of running into its deadline.
    await this.#drop();
    await this.#connecting?.catch(() => {});
    await this.#drop();
  }

  async #start(): Promise<void> {
    await this.#drop();
    if ((this.state as McpServerState) === "closed") return;
    this.state = "connecting";
    this.error = undefined;
    this.#stderr = "";
    const deadline = this.spec.startupTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`did not finish starting within ${deadline / 1000} s (session_init_timeout)`)),
        deadline,
      );
    });
    try {
      const mcp = await loadMcpModules();
      if ((this.state as McpServerState) === "closed") return;
      const transport = this.#createTransport(mcp);
      const client = new mcp.Client(CLIENT_INFO);
      this.#transport = transport;
      this.#client = client;
      const handshake = (async () => {
        await client.connect(transport, { timeout: deadline });
        return mcp.loadMcpTools(this.spec.name, client, { throwOnLoadError: false });
      })();
      handshake.catch(() => {});
      const tools = await Promise.race([handshake, timeout]);
      if ((this.state as McpServerState) === "closed") return;
      this.#inner = new Map(tools.map((tool) => [tool.name, tool]));
      this.tools = tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        schema: tool.schema as Record<string, unknown>,
      }));
      client.onclose = () => {
        if (this.#client !== client || this.state === "closed") return;
        this.state = "disconnected";
        this.error = `the server stopped${this.#stderrTail()}`;
      };
      this.state = "connected";
    } catch (error) {
      if ((this.state as McpServerState) === "closed") return;
      this.state = "failed";
      this.error = `${describe(error)}${this.#stderrTail()}`;
      await this.#drop();
    } finally {
      clearTimeout(timer);
    }
  }

  #createTransport(mcp: Awaited<ReturnType<typeof loadMcpModules>>): Transport {
    const { spec } = this;
    const { SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport } = mcp;
    if (spec.transport === "stdio") {
      const transport = new StdioClientTransport({
        command: spec.command!,
        args: spec.args,
        env: stdioEnvironment(spec, this.#env),
        stderr: "pipe",
      });
      transport.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
      });
      return transport;
    }
    const url = new URL(spec.url!);
    const headers = spec.headers;
    if (spec.transport === "sse") {
      return new SSEClientTransport(url, {
        requestInit: { headers },
        eventSourceInit: {
          fetch: (input, init) =>
            fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } }),
        },
      });
    }
    return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  }

  /** Forgets the current client and closes its transport (killing a stdio process). */
  async #drop(): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    this.#client = undefined;
    this.#transport = undefined;
    this.#inner = new Map();
    try {
      if (client) await client.close();
      else await transport?.close();
    } catch {
      // Already gone: nothing left to release.
    }
  }

  #stderrTail(): string {
    const lines = this.#stderr.trim().split("\n").slice(-3).join(" | ");
    return lines ? `; its stderr ended with: ${lines}` : "";
  }
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOENT/.test(message) && /spawn/.test(message)) return `the command was not found (${message})`;
  return message.replace(/^(Error calling tool \S+: )?(McpError: )?/, "");
}

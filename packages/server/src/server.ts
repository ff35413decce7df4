/**
 * `createServer(harness, options)`: the hono app with every route mounted at `/` (the SDK's default,
 * agent-chat-ui) and at `/api` (DeerFlow's frontend rewrites `/api/langgraph/*` to `/api/*`), plus
 * `start()`/`stop()`. Security is applied once on the outer app: CORS, API keys, body size, `{detail}`
 * errors. Route modules live in `routes/` and only receive the ServerContext.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { ConfigError, type Harness, isBareRunnerEntry, parseAllowList, STDIO_ALLOW_HINT } from "@deerflow/harness";
import { Hono } from "hono";
import type { RegisterRoutes, ResolvedServerOptions, ServerContext } from "./context.js";
import { errorResponse } from "./http/errors.js";
import { createAuthenticator } from "./auth/authenticate.js";
import { adoptLocalHome, openUserStore } from "./auth/open-user-store.js";
import { recordTokens } from "./auth/quotas.js";
import { threadOwnershipGuard } from "./auth/thread-guard.js";
import { corsPolicy, requestBodyLimit, resolveApiKeys, withAdminKeys } from "./http/security.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerArtifactRoutes } from "./routes/artifacts.js";
import { registerChannelRoutes } from "./routes/channels.js";
import { type ChannelOptions, createChannels } from "./channels/index.js";
import { registerAgentRoutes } from "./routes/agents.js";
import { registerAssistantRoutes } from "./routes/assistants.js";
import { registerGatewayMetaRoutes } from "./routes/gateway-meta.js";
import { registerMcpConfigRoutes } from "./routes/mcp-config.js";
import { registerMemoryRoutes } from "./routes/memory.js";
import { registerMetaRoutes } from "./routes/meta.js";
import { registerRegenerateRoutes } from "./routes/regenerate.js";
import { registerCompactRoutes } from "./routes/compact.js";
import { registerGoalRoutes } from "./routes/goal.js";
import { registerSuggestionRoutes } from "./routes/suggestions.js";
import { registerFeedbackRoutes } from "./routes/feedback.js";
import { registerStoreRoutes } from "./routes/store.js";
import { registerBranchRoutes } from "./routes/branches.js";
import { registerExportRoutes } from "./routes/export.js";
import { registerRunEventRoutes } from "./routes/run-events.js";
import { sweepExpiredThreads } from "./runs/prune-thread.js";
import { registerRunRoutes, runJson } from "./routes/runs.js";
import { registerCronRoutes } from "./routes/crons.js";
import { registerScheduledTaskRoutes } from "./routes/scheduled-tasks.js";
import { createCronScheduler } from "./crons/scheduler.js";
import { startCronRun } from "./crons/start-cron-run.js";
import { sendToChannel } from "./crons/channel-delivery.js";
import { createDeliverer } from "./webhooks/deliverer.js";
import { runResult } from "./runs/create-run.js";
import { registerSkillRoutes } from "./routes/skills.js";
import { registerSubagentRoutes } from "./routes/subagents.js";
import { registerRunChangesRoutes } from "./routes/run-changes.js";
import { registerThreadHistoryRoutes } from "./routes/thread-history.js";
import { registerThreadRoutes } from "./routes/threads.js";
import { DEFAULT_WEB_DIR, registerWebApp } from "./routes/web-app.js";
import { registerUploadRoutes } from "./routes/uploads.js";
import { createRequestsFirst } from "./runs/requests-first.js";
import { openRunServices } from "./runs/services.js";
import { adoptCheckpointThreads, threadAccessOf } from "./runs/threads.js";
import { isLoopbackHost } from "./loopback.js";

/** Shortest API key accepted on a host other than loopback: a short key is guessed quickly. */
const MIN_PUBLIC_KEY_LENGTH = 16;

/** Refuses to listen on `host` with a key shorter than MIN_PUBLIC_KEY_LENGTH (keys from the environment are not schema-checked). */
function checkKeyStrength(keys: readonly string[], host: string): void {
  const short = keys.filter((key) => key.length < MIN_PUBLIC_KEY_LENGTH);
  if (short.length === 0) return;
  throw new ConfigError(
    `Refusing to listen on ${host} with ${short.length === 1 ? "an API key" : `${short.length} API keys`} shorter than ${MIN_PUBLIC_KEY_LENGTH} characters (shortest: ${Math.min(...short.map((key) => key.length))}). Anyone who can reach the server could guess ${short.length === 1 ? "it" : "them"}. Use long random keys in server.api_keys or DEER_FLOW_API_KEYS (e.g. the output of: openssl rand -hex 24).`,
  );
}

/** Route modules, in registration order. Add a module here to add its routes at `/` and `/api`. */
const ROUTES: RegisterRoutes[] = [
  registerMetaRoutes,
  registerAssistantRoutes,
  registerAgentRoutes,
  registerThreadRoutes,
  registerCronRoutes,
  registerRunRoutes,
  registerStoreRoutes,
];
/** DeerFlow gateway routes (contract §B.4). */
ROUTES.push(
  registerGatewayMetaRoutes,
  registerUploadRoutes,
  registerArtifactRoutes,
  registerThreadHistoryRoutes,
  registerMemoryRoutes,
  registerSkillRoutes,
  registerMcpConfigRoutes,
  registerSubagentRoutes,
  registerRunChangesRoutes,
  registerRegenerateRoutes,
  registerCompactRoutes,
  registerGoalRoutes,
  registerSuggestionRoutes,
  registerFeedbackRoutes,
  registerBranchRoutes,
  registerExportRoutes,
  registerRunEventRoutes,
  registerAuthRoutes,
  registerChannelRoutes,
  registerScheduledTaskRoutes,
);

/** Options of `createServer`; every field has a default. */
export interface ServerOptions extends Partial<ResolvedServerOptions> {
  env?: Record<string, string | undefined>;
  /** Directory of the built web app served at `/` (default `packages/web/dist`); `null` serves none. */
  webDir?: string | null;
  /** The chat channels' options (their platforms come from config.yaml's `channels:`). */
  channels?: ChannelOptions;
}

/** A created (not yet listening) server. */
export interface DeerFlowServer {
  app: Hono;
  context: ServerContext;
  /** True when the web app's build was found and is served at `/`. */
  webApp: boolean;
  /** Starts the worker and listens; resolves with the URL once the port is bound (port 0 = OS-chosen). */
  start(listen?: { host?: string; port?: number }): Promise<{ url: string; host: string; port: number }>;
  /** Executes runs without listening (`deerflow serve --worker-only`, Postgres); `stop()` drains them. */
  startWorkerOnly(): Promise<void>;
  /** Stops taking requests and runs, drains running runs (grace period), closes connections and stores. The harness stays open. */
  stop(): Promise<void>;
}

/**
 * Creates the server over a harness.
 *
 * @example
 * const harness = await createHarness(loadConfig());
 * const server = createServer(harness);
 * const { url } = await server.start({ host: "127.0.0.1", port: 2026 });
 */
export function createServer(harness: Harness, options: ServerOptions = {}): DeerFlowServer {
  const config = harness.setup.config;
  const env = options.env ?? process.env;
  const resolved: ResolvedServerOptions = {
    apiKeys:
      options.apiKeys ?? withAdminKeys(resolveApiKeys(config.server.api_keys, env), config.server.admin_api_keys),
    corsOrigins: options.corsOrigins ?? config.server.cors_origins,
    maxBodyBytes: options.maxBodyBytes ?? config.server.max_body_bytes,
    heartbeatMs: options.heartbeatMs ?? 5000,
    maxConcurrentRuns: options.maxConcurrentRuns ?? config.server.max_concurrent_runs,
    runWorkers: options.runWorkers ?? config.server.run_workers,
    eventRetentionMs: options.eventRetentionMs ?? 10 * 60_000,
    maxEventsPerRun: options.maxEventsPerRun ?? 20_000,
    drainGraceMs: options.drainGraceMs ?? 20_000,
    headersTimeoutMs: options.headersTimeoutMs ?? 20_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 15 * 60_000,
    log: options.log ?? ((line) => console.error(line)),
    threadLease: options.threadLease,
    runWorker: options.runWorker ?? true,
    cronMaxSleepMs: options.cronMaxSleepMs ?? 10_000,
    webhookRetryBaseMs: options.webhookRetryBaseMs ?? 2000,
    ttlSweepMs: options.ttlSweepMs ?? 60_000,
  };
  for (const entry of config.server.mcp_stdio_allow.filter(isBareRunnerEntry))
    resolved.log(
      `warning: server.mcp_stdio_allow lists "${entry}", which allows nothing by itself (any code runs through it). ${STDIO_ALLOW_HINT}`,
    );
  const users = openUserStore(harness);
  const requestsFirst = createRequestsFirst();
  const services = openRunServices(harness, {
    ...resolved,
    yieldToRequests: requestsFirst.turn,
    env,
    onRunTokens: (run, tokens) => recordTokens({ users }, run.kwargs.owner, tokens),
  });
  const auth = createAuthenticator({
    users,
    mode: config.server.auth,
    keys: resolved.apiKeys,
    adminKeys: config.server.admin_api_keys,
  });
  const context: ServerContext = {
    ...services,
    harness,
    config,
    options: resolved,
    draining: false,
    requestsFirst,
    users,
    auth,
    onFirstAdmin: (user) => adoptLocalHome(harness, user, resolved.log),
    channels: createChannels(() => context, options.channels),
  };
  const scheduler = createCronScheduler({
    store: services.crons,
    startRun: (cron, ids, dueAt) => startCronRun(context, cron, ids, dueAt),
    runStatus: async (runId) => (await services.runs.get(runId))?.status ?? null,
    maxSleepMs: resolved.cronMaxSleepMs,
    log: resolved.log,
  });
  const offCrons = services.onCronsAnnounced(() => scheduler.wake());
  const deliverer = createDeliverer({
    store: services.deliveries,
    bodyOf: async (runId) => {
      const run = await services.runs.get(runId);
      if (!run) return null;
      return JSON.stringify({
        ...runJson(run),
        values: await runResult(context, run),
        error: run.kwargs.error ?? null,
      });
    },
    wait: (ms) => services.queue.wait(ms),
    secret: config.server.webhook_secret,
    allowList: parseAllowList(config.web.allow_hosts),
    retryBaseMs: resolved.webhookRetryBaseMs,
    log: resolved.log,
    sendToChannel: (target, body) => sendToChannel(context, target, body),
  });
  /** Deletes or prunes threads whose TTL ran out and deletes expired store items (runs/thread-ttl.ts). */
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweepTtls = () =>
    (sweeping = sweeping
      .then(async () => {
        await sweepExpiredThreads(context);
        await services.items.sweep();
      })
      .catch((error: Error) => resolved.log(`ttl sweep: ${error.message}`)));
  let ttlTimer: NodeJS.Timeout | undefined;
  /** Starts what executes work in this process: the worker, the cron scheduler, the webhook deliverer and the TTL sweep. */
  const startWorking = async () => {
    await services.worker.start();
    scheduler.start();
    deliverer.start();
    ttlTimer = setInterval(sweepTtls, resolved.ttlSweepMs);
    ttlTimer.unref();
  };
  // read_conversation reads only threads their run's user owns.
  harness.setThreadAccess(threadAccessOf(context));

  const api = new Hono();
  const guard = threadOwnershipGuard(context);
  api.use("/threads/:thread_id", guard);
  api.use("/threads/:thread_id/*", guard);
  for (const register of ROUTES) register(api, context);
  api.onError((error, c) => errorResponse(error, c, resolved.log));

  const app = new Hono();
  const webApp = registerWebApp(app, options.webDir === undefined ? DEFAULT_WEB_DIR : options.webDir);
  app.use("*", corsPolicy(resolved.corsOrigins));
  app.use("*", auth.middleware);
  app.use("*", requestBodyLimit(resolved.maxBodyBytes));
  app.route("/api", api);
  app.route("/", api);
  app.notFound((c) => c.json({ detail: `Not found: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => errorResponse(error, c, resolved.log));

  let server: Server | undefined;
  let stopped = false;
  return {
    app,
    context,
    webApp,
    async start(listen = {}) {
      const host = listen.host ?? "127.0.0.1";
      if (!isLoopbackHost(host)) checkKeyStrength(resolved.apiKeys, host);
      await services.open?.();
      await adoptCheckpointThreads(context);
      if (resolved.runWorker) await startWorking();
      await context.channels.start();
      const bound = await new Promise<AddressInfo>((resolve, reject) => {
        const created = serve(
          {
            fetch: app.fetch,
            hostname: host,
            port: listen.port ?? 2026,
            serverOptions: {
              headersTimeout: resolved.headersTimeoutMs,
              requestTimeout: Math.max(resolved.requestTimeoutMs, resolved.headersTimeoutMs),
              // How often Node looks for sockets past those timeouts (its default, 30 s, would let a
              // short headers timeout run up to 30 s late).
              connectionsCheckingInterval: Math.min(30_000, Math.max(100, resolved.headersTimeoutMs / 4)),
            },
          },
          (info) => resolve(info),
        );
        server = created as Server;
        server.once("error", reject);
      });
      const shownHost = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
      return { url: `http://${shownHost}:${bound.port}`, host: bound.address, port: bound.port };
    },
    async startWorkerOnly() {
      if (!harness.setup.postgres)
        throw new Error(
          "A worker-only process needs database.backend postgres: the SQLite queue lives in one process.",
        );
      await services.open?.();
      await startWorking();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      context.draining = true;
      await context.channels.stop();
      offCrons();
      await scheduler.stop();
      clearInterval(ttlTimer);
      await sweeping;
      const closing = server ? new Promise<void>((resolve) => server!.close(() => resolve())) : Promise.resolve();
      await services.worker.drain(resolved.drainGraceMs);
      await deliverer.stop();
      server?.closeAllConnections();
      await closing;
      await services.close();
      await users.close();
    },
  };
}

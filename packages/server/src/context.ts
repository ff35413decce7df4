/**
 * What every route module receives: the harness (models, memory, sandbox, checkpointer), the config,
 * the run machinery (stores, queue, event log, worker) and the server's resolved options. Route files
 * under `routes/` take this and register their handlers; they never reach for globals.
 */
import type { AppConfig, Harness } from "@deerflow/harness";
import type { Hono } from "hono";
import type { Authenticator } from "./auth/authenticate.js";
import type { UserRecord, UserStore } from "./auth/types.js";
import type { ChannelService } from "./channels/index.js";
import type { RequestsFirst } from "./runs/requests-first.js";
import type { RunServices } from "./runs/services.js";

/** Server options after defaults. */
export interface ResolvedServerOptions {
  /** API keys; empty = no authentication. */
  apiKeys: string[];
  corsOrigins: string[];
  maxBodyBytes: number;
  /** Interval of `: heartbeat` comments on SSE streams and of keep-alive newlines on `/wait`, in ms. */
  heartbeatMs: number;
  /** Runs executed at the same time (on different threads). */
  maxConcurrentRuns: number;
  /** Worker threads executing runs (SQLite only); 0 executes them on the HTTP event loop. */
  runWorkers: number;
  /** How long a finished run's events stay replayable, in ms. */
  eventRetentionMs: number;
  /** Most events kept per run; older ones are dropped (the terminal event never is). */
  maxEventsPerRun: number;
  /** On shutdown, how long running runs get to finish before they are stopped and left to resume, in ms. */
  drainGraceMs: number;
  /** Cross-process per-thread lease taken around each run (see WorkerDeps.threadLease). */
  threadLease?: (threadId: string, signal: AbortSignal) => Promise<() => void>;
  /**
   * Longest a client may take to send a request's headers, in ms; a socket that trickles them in (slow
   * loris) gets 408 and is closed.
   */
  headersTimeoutMs: number;
  /**
   * Longest a client may take to send a whole request (headers and body), in ms. It bounds receiving
   * only: a long SSE stream or `/wait` answer is not cut by it, a slow upload is.
   */
  requestTimeoutMs: number;
  /** Longest the cron scheduler sleeps without looking at the store, in ms (changes wake it sooner). */
  cronMaxSleepMs: number;
  /** Wait before a failed webhook delivery's second attempt, doubled for each later one, in ms. */
  webhookRetryBaseMs: number;
  /** How often expired thread TTLs and store items are swept, in ms. */
  ttlSweepMs: number;
  /** Execute runs in this process (false: API only; another process on the same Postgres runs them). */
  runWorker: boolean;
  /** Receives one-line log messages. */
  log: (line: string) => void;
}

/** Shared by every route module. */
export interface ServerContext extends RunServices {
  harness: Harness;
  config: AppConfig;
  options: ResolvedServerOptions;
  /** True once shutdown began: no new runs are accepted (503). */
  draining: boolean;
  /** Run requests mark themselves here so the worker on the HTTP thread lets them go first. */
  requestsFirst: RequestsFirst;
  /** Users, tokens and usage, in the thread database. */
  users: UserStore;
  /** The auth middleware and whether accounts are on. */
  auth: Authenticator;
  /** Runs once, when the first admin is created: the home's local memory becomes theirs. */
  onFirstAdmin(user: UserRecord): Promise<void>;
  /** The chat channels (Telegram, Slack) configured under `channels:`. */
  channels: ChannelService;
}

/** A route module: registers its handlers on the API app (mounted at `/` and at `/api`). */
export type RegisterRoutes = (api: Hono, context: ServerContext) => void;

/**
 * The public surface of `@deerflow/server`: the LangGraph-compatible agent server over a harness. The
 * CLI's `serve` uses the first group; the rest is for code that adds routes next to ours. Anything not
 * listed is internal; `test/public-surface.test.ts` pins the list.
 */

// --- The server and its options (what `deerflow serve` builds).
export { createServer, type DeerFlowServer, type ServerOptions } from "./server.js";
export { resolveApiKeys } from "./http/security.js";
export { isLoopbackHost } from "./loopback.js";

// --- Writing routes: the context a route gets, request validation and HTTP errors.
export type { RegisterRoutes, ResolvedServerOptions, ServerContext } from "./context.js";
export { HttpError, notFound } from "./http/errors.js";
export { check, Id, parseBody, parseQuery, pathId } from "./http/validate.js";

// --- Threads and runs: the stores behind the API, their records and statuses, the wire form of values.
export type { EventLog, RunQueue, RunRecord, RunStore, ThreadRecord, ThreadStore } from "./runs/types.js";
export { RunStatus, ThreadStatus } from "./runs/types.js";
export { deleteThread, findThread, requireThread } from "./runs/threads.js";
export { toWire } from "./runs/serialize.js";

// --- Accounts (what `deerflow users` needs): creating users and tokens, removing a user with their threads.
export { AccountError, addUser, issueToken } from "./auth/accounts.js";
export { type TokenRecord, type UserRecord, UserExistsError, type UserStore } from "./auth/types.js";
export { removeUser } from "./routes/auth.js";

// --- Chat channels (docs/channels.md): posting into a Telegram or Slack chat from elsewhere.
export { type ChannelName, type ChannelService, type OutgoingFile, postToChannel } from "./channels/index.js";
// --- Scheduled runs (what `deerflow cron` needs): creating a cron as the API does, and its record.
export { createCron } from "./crons/create-cron.js";
export type { CronRecord, CronStore } from "./crons/types.js";

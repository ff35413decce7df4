/**
 * The public surface of `@deerflow/server`: the LangGraph-compatible agent server over a harness.
 */
export { createServer, type DeerFlowServer, type ServerOptions } from "./server.js";
export type { RegisterRoutes, ResolvedServerOptions, ServerContext } from "./context.js";
export { HttpError, notFound } from "./http/errors.js";
export { check, Id, parseBody, parseQuery, pathId } from "./http/validate.js";
export { resolveApiKeys } from "./http/security.js";
export { isLoopbackHost } from "./loopback.js";
export type { EventLog, RunQueue, RunRecord, RunStore, ThreadRecord, ThreadStore } from "./runs/types.js";
export { RunStatus, ThreadStatus } from "./runs/types.js";
export { deleteThread, findThread, requireThread } from "./runs/threads.js";
export { toWire } from "./runs/serialize.js";

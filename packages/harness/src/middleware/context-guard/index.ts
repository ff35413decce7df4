/**
 * The context-guard middleware's door: the chain imports the factory from here, so the per-request
 * budget and the hard compaction beside it can change without touching callers.
 */
export { type ContextGuardOptions, contextGuardMiddleware } from "./context-guard.js";

/**
 * The durable-context middleware's door: the chain and tests import the factory from here, so its
 * capture and render helpers can change without touching callers.
 */
export { type DurableContextOptions, durableContextMiddleware } from "./durable-context.js";
export { HISTORY_SEARCH_HINT } from "./durable-context-render.js";

/**
 * The dangling-tool-call middleware's door: the chain and tests import the factory from here, with the
 * pure repair it applies to each request (`patchDanglingToolCalls`).
 */
export { INTERRUPTED_TOOL_RESULT, danglingToolCallMiddleware, patchDanglingToolCalls } from "./dangling-tool-call.js";

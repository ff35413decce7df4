/**
 * The summarization middleware's door: the chain and tests import the factory from here, so the
 * helpers beside it (cutoff, input, policy, summary generation) can change without touching callers.
 */
export { type SummarizationOptions, summarizationMiddleware } from "./summarization.js";

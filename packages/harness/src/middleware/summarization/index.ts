/**
 * The summarization middleware's door: the chain and tests import the factory from here, so the
 * helpers beside it (cutoff, input, policy, summary generation) can change without touching callers.
 */
export { type SummarizationOptions, summarizationMiddleware } from "./summarization.js";
export {
  type CompactionOutcome,
  type CompactionState,
  type CompactRequest,
  type Compactor,
  type NotCompactedReason,
  createCompactor,
} from "./summarization-compactor.js";
export {
  type BeforeSummarizationHook,
  type SummarizationEvent,
  runBeforeSummarizationHooks,
} from "./summarization-hooks.js";

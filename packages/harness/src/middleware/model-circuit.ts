/**
 * Fails a run at once while its model endpoint is paused by the process-wide circuit breaker
 * (`model/circuit-breaker.ts`), and reports each call's outcome to it. It sits outside model-retry, so a
 * failure it counts is a call that already used up its retries.
 */
import { isGraphBubbleUp } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { ModelError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { CircuitLimits, ModelCircuits } from "../model/circuit-breaker.js";
import { classifyProviderError } from "../model/provider-errors.js";

/** Options of {@link modelCircuitMiddleware}. */
export interface ModelCircuitOptions extends CircuitLimits {
  /** The shared circuits (`processModelCircuits` in the chains). */
  circuits: ModelCircuits;
  /** The endpoint's circuit key: calls to the same provider, model and URL share one circuit. */
  key: string;
  /** Names the model in the refusal. */
  modelName: string;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
}

/** The refusal while the circuit is open. */
export function circuitOpenMessage(
  modelName: string,
  refusal: { failures: number; lastError: string; retryAt: number; waitMs: number },
): string {
  const { failures, lastError, retryAt } = refusal;
  const seconds = Math.max(1, Math.ceil(refusal.waitMs / 1000));
  const at = new Date(retryAt).toISOString().slice(11, 19);
  return (
    `Model "${modelName}" is paused: its last ${failures} calls failed even after retries (last: ${lastError}). ` +
    `It will be tried again at ${at} UTC (in ${seconds} s). Wait and send the message again, or choose another model.`
  );
}

/**
 * Builds the circuit-breaker middleware.
 *
 * @example
 * modelCircuitMiddleware({ circuits: processModelCircuits, key: "openai|gpt-4o|", modelName: "gpt-4o", failureThreshold: 5, cooldownMs: 60_000 });
 */
export function modelCircuitMiddleware(options: ModelCircuitOptions) {
  const { circuits, key } = options;
  return createMiddleware({
    name: "model-circuit",
    wrapModelCall: async (request, handler) => {
      const decision = circuits.admit(key, options);
      if (!decision.admitted) {
        options.logger?.warn(`model "${options.modelName}" is paused by the circuit breaker; the call was refused`);
        throw new ModelError(circuitOpenMessage(options.modelName, decision));
      }
      try {
        const response = await handler(request);
        circuits.succeeded(key);
        return response;
      } catch (error) {
        const signal = (request.runtime as { signal?: AbortSignal } | undefined)?.signal;
        const info = classifyProviderError(error);
        if (isGraphBubbleUp(error) || signal?.aborted || !info.retryable) {
          circuits.released(key);
          throw error;
        }
        const status = info.status ? ` (HTTP ${info.status})` : "";
        circuits.failed(key, options, `${info.kind.replace("_", " ")}${status}`);
        if (decision.probe) options.logger?.warn(`model "${options.modelName}": the probe after the pause failed`);
        throw error;
      }
    },
  });
}

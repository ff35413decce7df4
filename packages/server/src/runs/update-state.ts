/**
 * Writes values into a thread's state as a client update (`POST /threads/{id}/state`, `/goal`), then
 * refreshes the thread record's copy of the values and interrupts. The caller has checked the thread
 * and that no run is in flight.
 */
import type { ServerContext } from "../context.js";
import { HttpError } from "../http/errors.js";
import { toWire } from "./serialize.js";
import { interruptsOf } from "./state.js";

/** Where the update is written, and the node it is credited to. */
export interface StateUpdateTarget {
  threadId: string;
  /** Branch from this checkpoint instead of the latest. */
  checkpointId?: string;
  asNode?: string;
}

/** The graph's node names (without LangGraph's start node), for error messages. */
function nodeNames(graph: { nodes?: Record<string, unknown> }): string {
  return Object.keys(graph.nodes ?? {})
    .filter((name) => name !== "__start__")
    .join(", ");
}

/** Applies `values` to the thread's state; returns the new checkpoint's config. */
export async function updateThreadValues(
  context: ServerContext,
  target: StateUpdateTarget,
  values: Record<string, unknown> | unknown[] | null,
) {
  const graph = context.harness.agent().graph;
  const { threadId, checkpointId, asNode } = target;
  const config = { configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } };
  let written;
  try {
    written = await graph.updateState(config, values as never, asNode).catch((error: Error) => {
      // Without as_node, LangGraph credits the update to the node that wrote last. A run with other
      // options (plan mode) may have used a graph with a composed-chain node the default graph lacks
      // (`deerflow-chain.after_model`); credit the update to the model node instead.
      const missing = /Node "(deerflow-chain\.[a-z_]+)" does not exist/.exec(error.message);
      if (asNode || !missing) throw error;
      return graph.updateState(config, values as never, "model_request");
    });
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "";
    // An unknown as_node: say which names the graph has.
    const nodes = asNode && /does not exist|Unknown node|not found/i.test(message) ? nodeNames(graph) : "";
    throw new HttpError(
      400,
      `The state could not be updated: ${message}${nodes ? `. as_node must be one of the graph's nodes: ${nodes}` : ""}`,
    );
  }
  const snapshot = await graph.getState({ configurable: { thread_id: threadId } });
  await context.threads.patch(threadId, {
    values: toWire(snapshot.values ?? {}) as Record<string, unknown>,
    interrupts: interruptsOf(snapshot),
  });
  return written;
}

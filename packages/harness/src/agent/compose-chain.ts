/**
 * Folds an ordered middleware chain into one graph node per hook phase.
 *
 * langchain's `createAgent` turns every `beforeAgent`, `beforeModel`, `afterModel` and `afterAgent` hook
 * of every middleware into a graph node of its own, and LangGraph writes a checkpoint after each node.
 * A twelve-entry chain thus costs about a dozen checkpoints per model call. `composeChain` keeps the
 * chain as the list of small middlewares (order pinned by lead-agent-chain.ts and its test) and hands
 * `createAgent` instead:
 *
 * - one middleware holding the four node hooks, each of which runs the members' hooks of that phase in
 *   langchain's order (`before*` first to last, `after*` last to first). Each member sees the state as
 *   the previous members left it, their updates applied through the channel's own reducer (`messages`
 *   through the messages reducer, RemoveMessage included), and only the channels it declares, as a node
 *   of its own would. A member's jump stops the members after it and is returned; the composed hook
 *   allows every target its members allow. A phase no member has gets no node.
 * - each member's remaining parts (wrapModelCall, wrapToolCall, tools, state schema, stream
 *   transformers) as a middleware without node hooks, under its own name and in chain order, so langchain
 *   nests the wrappers, filters their state and names their errors exactly as before, and lists tools in
 *   the same order.
 *
 * The composed node returns one update per channel: a member's own update when it alone wrote the
 * channel, otherwise the result of all of them (the final message list after a remove-all marker, or an
 * Overwrite of a reduced channel), so the checkpointed state equals what the separate nodes left.
 *
 * One routing difference is inherent to a single node: langchain routes a jump from a later `afterModel`
 * node straight to its target, but a jump from the composed `afterModel` through the router of the
 * first one, which ends the run (through `afterAgent`) when the last message is a final answer, and
 * sends `end` through the `afterAgent` hooks. No built-in member jumps to `end` or `tools` from
 * `afterModel`; the plan-mode reminder (`model`) routes the same either way.
 *
 * With `afterModelInModelCall`, a chain whose `afterModel` hooks never jump has no `after_model` node at
 * all: the hooks run in the composed middleware's `wrapModelCall` (the outermost wrapper, so after every
 * other wrapper and the model) on the state with the response appended, and their updates travel with
 * the model node's own as a Command. Only what the hooks returned is written there: a node of its own
 * also writes back every reduced channel its hook read (langchain returns the node's input under the
 * hook's result), which the merge reducers of the thread state make a no-op anyway. A model round is then three graph steps (model, tools,
 * before_model), as in an agent whose middleware has no `afterModel`. The hooks see what the node saw,
 * with one difference: a response without an id gets its id before the hooks rather than from the
 * messages reducer after them. A handler result that is not an AI message (a structured-output retry) is
 * passed on without running them.
 *
 * Members whose context or state cannot be split this way (a `contextSchema`, or a state schema that is
 * neither a `StateSchema` nor a zod object) make the chain go to `createAgent` unchanged.
 */
import { AIMessage, RemoveMessage } from "@langchain/core/messages";
import { getInteropZodObjectShape, isInteropZodObject, isZodSchemaV4 } from "@langchain/core/utils/types";
import {
  Command,
  Overwrite,
  REMOVE_ALL_MESSAGES,
  ReducedValue,
  StateSchema,
  messagesStateReducer,
} from "@langchain/langgraph";
import { schemaMetaRegistry } from "@langchain/langgraph/zod";
import type { AgentMiddleware } from "langchain";

type Phase = "beforeAgent" | "beforeModel" | "afterModel" | "afterAgent";
type HookFn = (state: Record<string, unknown>, runtime: unknown) => unknown;
type Reducer = (current: unknown, next: unknown) => unknown;

const PHASES: readonly Phase[] = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"];
/** Channels every hook node reads besides its middleware's own (langchain's built-in agent state). */
const BUILT_IN_KEYS = ["messages", "structuredResponse"];

interface Member {
  name: string;
  keys: string[];
  hooks: Partial<Record<Phase, { fn: HookFn; canJumpTo: string[] }>>;
}

/** Options of {@link composeChain}. */
export interface ComposeChainOptions {
  /** Run non-jumping `afterModel` hooks inside the model node instead of a node of their own (see the file comment). */
  afterModelInModelCall?: boolean;
}

/** The default name of the node-hook middleware (its nodes are `deerflow-chain.before_model` and so on). */
export const COMPOSED_CHAIN_NAME = "deerflow-chain";

/**
 * The middleware list to give `createAgent` for `chain`: one middleware with at most one hook per phase,
 * then each member's wrappers and tools. Behaves like `chain` itself (see the file comment).
 */
export function composeChain(
  chain: readonly AgentMiddleware[],
  name = COMPOSED_CHAIN_NAME,
  options: ComposeChainOptions = {},
): AgentMiddleware[] {
  if (chain.some((entry) => entry.name === name))
    throw new Error(`composeChain: a chain member is already named "${name}"; pass another name.`);
  if (!chain.every(composable)) return [...chain];
  const fields: Record<string, unknown> = {};
  const reducers = new Map<string, Reducer>();
  const members: Member[] = [];
  for (const entry of chain) {
    const schemaFields = channelsOf(entry.stateSchema)!;
    for (const [key, field] of Object.entries(schemaFields)) {
      if (!(key in fields)) fields[key] = field;
      if (ReducedValue.isInstance(field) && !reducers.has(key))
        reducers.set(key, (field as { reducer: Reducer }).reducer);
    }
    const hooks: Member["hooks"] = {};
    for (const phase of PHASES) {
      const hook = (entry as Record<Phase, unknown>)[phase];
      if (typeof hook === "function") hooks[phase] = { fn: hook as HookFn, canJumpTo: [] };
      else if (hook && typeof hook === "object") {
        const { hook: fn, canJumpTo } = hook as { hook: HookFn; canJumpTo?: string[] };
        hooks[phase] = { fn, canJumpTo: [...(canJumpTo ?? [])] };
      }
    }
    members.push({ name: entry.name, keys: [...BUILT_IN_KEYS, ...Object.keys(schemaFields)], hooks });
  }

  const composed: Record<string, unknown> = { name, stateSchema: new StateSchema(fields as never) };
  let afterModel: WrapFn | undefined;
  for (const phase of PHASES) {
    const ordered = members.filter((member) => member.hooks[phase] !== undefined);
    if (ordered.length === 0) continue;
    if (phase === "afterModel" || phase === "afterAgent") ordered.reverse();
    const canJumpTo = [...new Set(ordered.flatMap((member) => member.hooks[phase]!.canJumpTo))];
    if (phase === "afterModel" && options.afterModelInModelCall && canJumpTo.length === 0)
      afterModel = afterModelWrapper(phaseHook(phase, ordered, reducers, false));
    else {
      const hook = phaseHook(phase, ordered, reducers, true);
      composed[phase] = canJumpTo.length > 0 ? { canJumpTo, hook } : hook;
    }
  }

  const rest = chain
    .map((entry, index) => withoutNodeHooks(entry, members[index]!))
    .filter(
      (entry) => entry.wrapModelCall || entry.wrapToolCall || entry.tools?.length || entry.streamTransformers?.length,
    );
  const sharing = rest.some((entry) => SHARES_STATE in entry);
  if (sharing || afterModel) composed.wrapModelCall = outermostModelWrapper(sharing, afterModel);
  if (rest.some((entry) => SHARES_STATE in entry && entry.wrapToolCall)) composed.wrapToolCall = sharedStateWrapper;
  return [composed as unknown as AgentMiddleware, ...rest];
}

/** Whether a member's hooks can share a node: no context of its own, and state channels we can read. */
function composable(entry: AgentMiddleware): boolean {
  return entry.contextSchema === undefined && channelsOf(entry.stateSchema) !== undefined;
}

/**
 * A member's state schema as channel definitions, the way langchain's agent state reads it: a
 * StateSchema's fields as they are; a zod object's fields as plain last-value channels unless LangGraph's
 * schema registry gives them a reducer. Undefined for a schema of another kind.
 */
function channelsOf(schema: unknown): Record<string, unknown> | undefined {
  if (schema === undefined) return {};
  if (StateSchema.isInstance(schema)) return (schema as unknown as { fields: Record<string, unknown> }).fields;
  if (!isInteropZodObject(schema)) return undefined;
  const channels: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(getInteropZodObjectShape(schema))) {
    const reducer = isZodSchemaV4(field) ? schemaMetaRegistry.get(field)?.reducer : undefined;
    if (!reducer) channels[key] = field;
    else
      channels[key] = new ReducedValue(field as never, {
        reducer: reducer.fn,
        ...(reducer.schema ? { inputSchema: reducer.schema as never } : {}),
      });
  }
  return channels;
}

/**
 * The member without its node hooks: what langchain still needs from it besides the composed node.
 *
 * A member with a `wrapModelCall` and a state schema also loses the schema: langchain would build a
 * partial zod schema of it and parse the state through it for every model call, for every such member
 * (a new schema each time, so zod compiles its parser each time; a tenth of a model round's harness
 * time). The composed middleware declares every channel already and, as the outermost wrapper, hands
 * its own view of the state down the request under {@link FULL_STATE}; the member's wrappers are given
 * the channels it declared from there, the state langchain would have given them.
 */
function withoutNodeHooks(entry: AgentMiddleware, member: Member): AgentMiddleware {
  const { beforeAgent: _ba, beforeModel: _bm, afterModel: _am, afterAgent: _aa, ...rest } = entry;
  if (!entry.wrapModelCall || entry.stateSchema === undefined) return rest as AgentMiddleware;
  const { stateSchema: _schema, ...shared } = rest;
  const keys = member.keys.filter((key) => key !== "structuredResponse");
  const out = shared as Record<PropertyKey, unknown>;
  out[SHARES_STATE] = true;
  out.wrapModelCall = givenState(entry.wrapModelCall as unknown as WrapFn, keys);
  if (entry.wrapToolCall) out.wrapToolCall = givenState(entry.wrapToolCall as unknown as WrapFn, keys);
  return out as unknown as AgentMiddleware;
}

/** The request property carrying the composed middleware's view of the whole state to the members' wrappers. */
const FULL_STATE = Symbol("deerflow.composedState");
/** Marks a member whose wrappers read their state from {@link FULL_STATE}. */
const SHARES_STATE = Symbol("deerflow.sharesState");

type Request = Record<PropertyKey, unknown> & { state: Record<string, unknown>; runtime: unknown };
type WrapFn = (request: Request, handler: (request: Request) => Promise<unknown>) => Promise<unknown>;

/** `wrap` given the member's channels of the state the composed wrapper passed down (see withoutNodeHooks). */
function givenState(wrap: WrapFn, keys: readonly string[]): WrapFn {
  return (request, handler) => {
    const full = request[FULL_STATE] as Record<string, unknown> | undefined;
    if (full === undefined) return wrap(request, handler);
    // Passed on to the inner wrappers even when this one builds a new request without it.
    const onward = (inner: Request) => handler(FULL_STATE in inner ? inner : { ...inner, [FULL_STATE]: full });
    return wrap({ ...request, state: pick(full, keys) }, onward);
  };
}

/** The composed tool wrapper: the state it is given, passed down to the members' wrappers. */
const sharedStateWrapper: WrapFn = (request, handler) => handler({ ...request, [FULL_STATE]: request.state });

/** The composed model wrapper: shares the state it is given, and runs the after-model hooks if there are any. */
function outermostModelWrapper(sharing: boolean, afterModel: WrapFn | undefined): WrapFn {
  if (!sharing) return afterModel!;
  if (!afterModel) return sharedStateWrapper;
  return (request, handler) => afterModel({ ...request, [FULL_STATE]: request.state }, handler);
}

/** One phase's hook: the members in order, each on the state the previous ones left. */
function phaseHook(
  phase: Phase,
  members: readonly Member[],
  reducers: ReadonlyMap<string, Reducer>,
  asNode: boolean,
): HookFn {
  return async (state, runtime) => {
    const current: Record<string, unknown> = { ...state };
    const writes = new Map<string, unknown[]>();
    let changed = false;
    let jumpTo: string | undefined;
    for (const member of members) {
      const { fn, canJumpTo } = member.hooks[phase]!;
      const view = pick(current, member.keys);
      let result = (await fn(view, runtime)) as Record<string, unknown> | undefined | null;
      if (!result) continue;
      changed = true;
      if (typeof result.jumpTo === "string" && !canJumpTo.includes(result.jumpTo)) {
        const allowed =
          canJumpTo.length > 0
            ? `must be one of: ${canJumpTo.join(", ")}`
            : `no ${phase}.canJumpTo defined in middleware ${member.name}`;
        throw new Error(`Invalid jump target: ${result.jumpTo}, ${allowed}.`);
      }
      if ("type" in result) {
        // A control action, as langchain's node handles it: terminate carries an update, or an error.
        if (result.type !== "terminate") throw new Error(`Invalid control action: ${JSON.stringify(result)}`);
        if (result.error) throw result.error;
        result = { ...((result.result as Record<string, unknown> | undefined) ?? {}), jumpTo: result.jumpTo };
      }
      const { jumpTo: target, ...update } = result;
      // As its own node would, the member writes back every reduced channel it read, its result over them
      // (langchain's node returns the state it was given with the hook's result spread over it). Inside the
      // model call there is no such node: only what the member returned is written.
      for (const [key, value] of Object.entries(asNode ? { ...pickReduced(view, reducers), ...update } : update)) {
        current[key] = apply(key, current[key], value, reducers);
        const list = writes.get(key);
        if (list) list.push(value);
        else writes.set(key, [value]);
      }
      if (typeof target === "string" && target) {
        jumpTo = target;
        break;
      }
    }
    if (!changed) return undefined;
    const out: Record<string, unknown> = {};
    // langchain spreads this node's whole input under what it returns: a reduced channel no member wrote is
    // set to the value it already has, so its reducer does not run on it once more.
    if (asNode) for (const key of reducers.keys()) if (state[key] !== undefined) out[key] = new Overwrite(state[key]);
    for (const [key, values] of writes)
      out[key] = values.length === 1 ? values[0] : combined(key, current[key], reducers);
    out.jumpTo = jumpTo;
    return out;
  };
}

/** A `wrapModelCall` running the composed `afterModel` hook on the model's response (see the file comment). */
function afterModelWrapper(hook: HookFn): WrapFn {
  return async (request, handler) => {
    const response = await handler(request);
    if (!AIMessage.isInstance(response)) return response;
    // The id the messages reducer would give it, so a member replacing the response replaces, not appends.
    if (response.id == null) {
      response.id = crypto.randomUUID();
      response.lc_kwargs.id = response.id;
    }
    const messages = [...((request.state.messages as unknown[] | undefined) ?? []), response];
    const update = (await hook({ ...request.state, messages }, request.runtime)) as Record<string, unknown> | undefined;
    if (!update) return response;
    const { jumpTo: _jumpTo, ...rest } = update;
    return new Command({ update: rest });
  };
}

/** `value` applied to a channel as LangGraph would: messages reducer, the channel's reducer, or replaced. */
function apply(key: string, current: unknown, value: unknown, reducers: ReadonlyMap<string, Reducer>): unknown {
  if (key === "messages") return messagesStateReducer((current ?? []) as never, value as never);
  const reducer = reducers.get(key);
  if (reducer === undefined || current === undefined) return value;
  return reducer(current, value);
}

/** One update that takes a channel written by several members to the value they left together. */
function combined(key: string, value: unknown, reducers: ReadonlyMap<string, Reducer>): unknown {
  if (key === "messages") return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...(value as unknown[])];
  return reducers.has(key) ? new Overwrite(value) : value;
}

/** The reduced channels of a member's view (messages excepted: merging a list into itself changes nothing). */
function pickReduced(view: Record<string, unknown>, reducers: ReadonlyMap<string, Reducer>): Record<string, unknown> {
  const reduced: Record<string, unknown> = {};
  for (const key of Object.keys(view)) if (reducers.has(key)) reduced[key] = view[key];
  return reduced;
}

/** What a member's own node would have read: the built-in channels and the ones its schema declares. */
function pick(state: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const key of keys) if (key in state) view[key] = state[key];
  return view;
}

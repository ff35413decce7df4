/**
 * Turns graph output into the JSON the LangGraph clients read: a message becomes its fields plus
 * `type` (`{type: "ai", content, id, tool_calls, ...}`), as langgraph-api sends them; everything else is
 * copied as plain data. Done by walking the value, because a message's own toJSON is langchain's
 * constructor format, which no client understands.
 *
 * A run's stream repeats the same message objects (every `values` event holds the whole list, `updates`
 * the changed ones), and a message's conversion (langchain's `toDict`) is most of the walk. The text
 * writers (`wireJson`, `wireValues`) keep each message's converted form by object and reuse it while
 * every field its conversion reads is the same value (messages in a graph's state are replaced, not
 * edited; a field assigned anew is seen). `toWire` always converts afresh: its result is the caller's.
 */
import { type BaseMessage, isBaseMessage } from "@langchain/core/messages";

/** Deepest nesting converted; deeper values become null. */
const MAX_DEPTH = 64;

interface Walk {
  /** Reuse and remember converted messages (the result is only stringified, never handed out). */
  shared: boolean;
  /** Deepest level reached so far. */
  deepest: number;
}

/** A message's converted form, the values its conversion read, and how deep it nests. */
interface WiredMessage {
  wired: Record<string, unknown>;
  fields: unknown[];
  height: number;
}

const wiredMessages = new WeakMap<object, WiredMessage>();

/** A JSON-safe copy of `value` with messages in the wire format. */
export function toWire(value: unknown, depth = 0): unknown {
  return walk(value, depth, { shared: false, deepest: depth });
}

/** `toWire` then JSON text. */
export function wireJson(value: unknown): string {
  return JSON.stringify(walk(value, 0, { shared: true, deepest: 0 }) ?? null);
}

/**
 * `toWire` of a state's values for the caller to stringify (a thread record's `values`): it may share
 * converted messages with the stream's events, so it must not be changed.
 */
export function wireValues(value: unknown): unknown {
  return walk(value, 0, { shared: true, deepest: 0 });
}

function walk(value: unknown, depth: number, state: Walk): unknown {
  if (depth > state.deepest) state.deepest = depth;
  if (value === null || value === undefined) return value ?? null;
  if (typeof value !== "object")
    return typeof value === "bigint" ? String(value) : typeof value === "function" ? undefined : value;
  if (depth > MAX_DEPTH) return null;
  if (isBaseMessage(value)) return state.shared ? sharedMessage(value, depth, state) : message(value, depth, state);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, state) ?? null);
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([key, item]) => [String(key), walk(item, depth + 1, state)]));
  if (value instanceof Set) return [...value].map((item) => walk(item, depth + 1, state));
  if (value instanceof Error) return { error: value.name, message: value.message };
  if (typeof (value as { toJSON?: unknown }).toJSON === "function" && !isPlain(value)) {
    return walk((value as { toJSON(): unknown }).toJSON(), depth + 1, state);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const wired = walk(item, depth + 1, state);
    if (wired !== undefined) out[key] = wired;
  }
  return out;
}

function message(value: BaseMessage, depth: number, state: Walk): Record<string, unknown> {
  const dict = value.toDict() as unknown as { type: string; data: Record<string, unknown> };
  return { ...(walk(dict.data, depth + 1, state) as Record<string, unknown>), type: dict.type };
}

/** The message's converted form, reused while its fields are the same and it fits under MAX_DEPTH here. */
function sharedMessage(value: BaseMessage, depth: number, state: Walk): Record<string, unknown> {
  const known = wiredMessages.get(value);
  if (known && depth + known.height <= MAX_DEPTH && sameFields(known.fields, messageFields(value))) {
    if (depth + known.height > state.deepest) state.deepest = depth + known.height;
    return known.wired;
  }
  const inner: Walk = { shared: true, deepest: depth };
  const wired = message(value, depth, inner);
  if (inner.deepest > state.deepest) state.deepest = inner.deepest;
  // A message cut at MAX_DEPTH here could convert differently elsewhere: not kept.
  if (inner.deepest <= MAX_DEPTH)
    wiredMessages.set(value, { wired, fields: messageFields(value), height: inner.deepest - depth });
  return wired;
}

/**
 * What langchain's `toDict` reads: the constructor arguments (`lc_kwargs`, by object) and the message's
 * own value of each of their keys.
 */
function messageFields(value: BaseMessage): unknown[] {
  const kwargs = (value as unknown as { lc_kwargs: Record<string, unknown> }).lc_kwargs;
  const fields: unknown[] = [kwargs];
  if (kwargs === null || typeof kwargs !== "object") return fields;
  const own = value as unknown as Record<string, unknown>;
  for (const key of Object.keys(kwargs)) fields.push(key, key in own ? own[key] : kwargs[key]);
  return fields;
}

function sameFields(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

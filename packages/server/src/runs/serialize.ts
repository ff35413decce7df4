/**
 * Turns graph output into the JSON the LangGraph clients read: a message becomes its fields plus
 * `type` (`{type: "ai", content, id, tool_calls, ...}`), as langgraph-api sends them; everything else is
 * copied as plain data. Done by walking the value, because a message's own toJSON is langchain's
 * constructor format, which no client understands.
 */
import { isBaseMessage } from "@langchain/core/messages";

/** A JSON-safe copy of `value` with messages in the wire format. */
export function toWire(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value !== "object")
    return typeof value === "bigint" ? String(value) : typeof value === "function" ? undefined : value;
  if (depth > 64) return null;
  if (isBaseMessage(value)) {
    const dict = value.toDict() as unknown as { type: string; data: Record<string, unknown> };
    return { ...(toWire(dict.data, depth + 1) as Record<string, unknown>), type: dict.type };
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => toWire(item, depth + 1) ?? null);
  if (value instanceof Map)
    return Object.fromEntries([...value].map(([key, item]) => [String(key), toWire(item, depth + 1)]));
  if (value instanceof Set) return [...value].map((item) => toWire(item, depth + 1));
  if (value instanceof Error) return { error: value.name, message: value.message };
  if (typeof (value as { toJSON?: unknown }).toJSON === "function" && !isPlain(value)) {
    return toWire((value as { toJSON(): unknown }).toJSON(), depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const wired = toWire(item, depth + 1);
    if (wired !== undefined) out[key] = wired;
  }
  return out;
}

/** `toWire` then JSON text. */
export function wireJson(value: unknown): string {
  return JSON.stringify(toWire(value) ?? null);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

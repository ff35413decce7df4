/**
 * Large values stored once: a serializer for the checkpointers (SQLite here, Postgres through
 * `postgres-large-values.ts`) that moves every long string out of a checkpoint into a
 * content-addressed table and leaves a short reference in its place.
 *
 * LangGraph writes the whole state after every step, so a 19 KB tool result, or a 10 MB tool argument
 * that a tool then refused, was written again in every later checkpoint of the thread until
 * summarization dropped it. With this serializer each distinct long string is written once
 * (`large_values`, keyed by its SHA-256) and checkpoints carry a 70-byte reference. Reading a
 * checkpoint puts the strings back, so the state, the model's requests and `deerflow history` see
 * exactly what they saw before: nothing above the storage layer changes.
 *
 * Works on the serialized JSON text: only checkpoints longer than the threshold are scanned, and the
 * scan jumps from quote to quote.
 *
 * Messages stored once, too: a checkpoint's `messages` channel repeats every message of the bounded
 * window in every checkpoint, and `runs` retention keeps two checkpoints per run, so a long thread of
 * short turns stored each message about twenty times (a 300-turn CLI thread: 15 MB for 73 KB said).
 * Each message of at least MESSAGE_REF_CHARS serialized characters goes to `large_values` under the
 * SHA-256 of its JSON, and the checkpoint carries a reference; reading puts the JSON back before it is
 * revived, so what is read is what was written.
 */
import { createHash } from "node:crypto";
import { isBaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import type Database from "better-sqlite3";

/** Strings of at least this many (escaped JSON) characters are stored once and referred to. */
export const LARGE_VALUE_CHARS = 16 * 1024;

/** The reference left in a checkpoint: a JSON string starting with a NUL escape, then the hash. */
const MARK = "\\u0000dfv:";
const REFERENCE = /"\\u0000dfv:([0-9a-f]{64})"/g;
/** A checkpoint message of at least this many serialized characters is stored once (a reference is 75). */
export const MESSAGE_REF_CHARS = 200;
/** The reference to a stored message: as above with `dfm:`; restored to the message's JSON object. */
const MESSAGE_MARK = "\\u0000dfm:";
const MESSAGE_REFERENCE = /"\\u0000dfm:([0-9a-f]{64})"/g;

type Serde = JsonPlusSerializer;

/** Where the stored values live: a SQLite table, or Postgres's (`postgres-large-values.ts`). */
export interface LargeValueTable {
  /** False on a read-only store: checkpoints are written as they are (nothing is written at all). */
  readonly writable: boolean;
  /** Named in the error when a checkpoint refers to a value that is missing. */
  readonly where: string;
  /** Stores values by hash; a hash already stored is left as it is. */
  put(values: ReadonlyMap<string, string>): void | Promise<void>;
  /**
   * Calls `fn` once the values the last `put` gave are stored for good. A table that defers its puts
   * into the checkpoint's own statement (Postgres) calls it when that statement commits, and never if it
   * fails; without this method, at once.
   */
  whenStored?(fn: () => void): void;
  /** The stored bodies of those of `hashes` that exist. */
  get(hashes: readonly string[]): Map<string, string> | Promise<Map<string, string>>;
}

const SCHEMA = "CREATE TABLE IF NOT EXISTS large_values (hash TEXT PRIMARY KEY, body TEXT NOT NULL)";

/** The `large_values` table of a SQLite database (created unless the database is read-only). */
export function sqliteLargeValues(db: Database.Database): LargeValueTable {
  const writable = !db.readonly;
  if (writable) db.exec(SCHEMA);
  const hasTable = () =>
    Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'large_values'").get());
  const insert = writable ? db.prepare("INSERT OR IGNORE INTO large_values (hash, body) VALUES (?, ?)") : null;
  let select: Database.Statement<[string], { body: string }> | null = null;
  return {
    writable,
    where: `large_values in ${db.name}`,
    put(values) {
      for (const [hash, body] of values) insert!.run(hash, body);
    },
    get(hashes) {
      select ??= hasTable() ? db.prepare("SELECT body FROM large_values WHERE hash = ?") : null;
      const found = new Map<string, string>();
      for (const hash of hashes) {
        const row = select?.get(hash);
        if (row) found.set(hash, row.body);
      }
      return found;
    },
  };
}

/**
 * Wraps `inner` (default: LangGraph's JSON serializer) so long strings go to `large_values` in `db`
 * (a SQLite database, or any {@link LargeValueTable}).
 *
 * @example
 * const saver = new SqliteSaver(db, createLargeValueSerde(db));
 */
export function createLargeValueSerde(
  db: Database.Database | LargeValueTable,
  inner: Serde = new JsonPlusSerializer(),
  thresholdChars = LARGE_VALUE_CHARS,
): Serde {
  const table = "put" in db ? db : sqliteLargeValues(db);
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();

  /** The text with every long JSON string replaced by a reference, and the strings by hash. */
  const extract = (text: string): { lean: string; values: Map<string, string> } => {
    const values = new Map<string, string>();
    const parts: string[] = [];
    let copied = 0;
    let at = 0;
    for (;;) {
      const open = text.indexOf('"', at);
      if (open < 0) break;
      let close = open + 1;
      for (;;) {
        close = text.indexOf('"', close);
        if (close < 0) return { lean: text, values: new Map() }; // not JSON as expected: store as is
        let slashes = 0;
        while (text.charCodeAt(close - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
        close++;
      }
      if (close - open - 1 >= thresholdChars) {
        const body = text.slice(open + 1, close);
        const hash = createHash("sha256").update(body).digest("hex");
        values.set(hash, body);
        parts.push(text.slice(copied, open), `"${MARK}${hash}"`);
        copied = close + 1;
      }
      at = close + 1;
    }
    if (copied === 0) return { lean: text, values };
    parts.push(text.slice(copied));
    return { lean: parts.join(""), values };
  };

  const restore = async (text: string): Promise<string> => {
    // Messages first: a stored message's JSON may itself hold references to long strings.
    const messageHashes = [...new Set([...text.matchAll(MESSAGE_REFERENCE)].map((match) => match[1]!))];
    if (messageHashes.length > 0) {
      const messages = await table.get(messageHashes);
      text = text.replace(MESSAGE_REFERENCE, (_whole, hash: string) => {
        const body = messages.get(hash);
        if (body === undefined) throw missing(hash);
        return body;
      });
    }
    const hashes = [...new Set([...text.matchAll(REFERENCE)].map((match) => match[1]!))];
    if (hashes.length === 0) return text;
    const bodies = await table.get(hashes);
    return text.replace(REFERENCE, (_whole, hash: string) => {
      const body = bodies.get(hash);
      if (body === undefined) throw missing(hash);
      return `"${body}"`;
    });
  };
  const missing = (hash: string) =>
    new Error(
      `Checkpoint refers to stored value ${hash.slice(0, 12)}… which is missing from ${table.where}. The store was edited or truncated; restore it from a backup.`,
    );

  /**
   * Messages this serializer stored recently, by object: LangGraph hands every checkpoint of a run the same
   * message objects, so each is serialized, hashed and stored once rather than at every step (most of a
   * checkpoint's cost). An entry holds while the fields a message serializes from are the same objects and
   * for STORED_MESSAGE_TTL_MS, after which the message is stored again (on Postgres that refreshes
   * `used_at`, which collection's grace period counts from).
   */
  const storedMessages = new WeakMap<object, StoredMessage>();
  const entryFor = (message: object, now: number): StoredMessage["ref"] | undefined => {
    const entry = storedMessages.get(message);
    if (entry === undefined || now - entry.at > STORED_MESSAGE_TTL_MS) return undefined;
    return sameFields(messageFields(message), entry.fields) ? entry.ref : undefined;
  };

  /**
   * The messages of a checkpoint just read, remembered as stored under the references they were read
   * from: the run that continues the thread writes them into its first checkpoint without serializing
   * each again.
   */
  const rememberLoaded = (lean: string, value: unknown) => {
    const revived = (value as { channel_values?: { messages?: unknown } } | null)?.channel_values?.messages;
    if (!Array.isArray(revived)) return;
    const stored = (JSON.parse(lean) as { channel_values?: { messages?: unknown } }).channel_values?.messages;
    if (!Array.isArray(stored) || stored.length !== revived.length) return;
    const now = Date.now();
    for (let i = 0; i < revived.length; i++) {
      const message: unknown = revived[i];
      if (typeof message !== "object" || message === null) continue;
      const ref = stored[i];
      const isRef = typeof ref === "string" && ref.startsWith("\u0000dfm:");
      storedMessages.set(message, { ref: isRef ? ref : null, at: now, fields: messageFields(message) });
    }
  };

  /** The checkpoint with each long enough message of its `messages` channel stored and replaced by a reference. */
  const withMessagesStored = async (obj: unknown): Promise<unknown> => {
    const values = (obj as { channel_values?: Record<string, unknown> } | null)?.channel_values;
    const messages = values?.messages;
    if (!Array.isArray(messages) || messages.length === 0) return obj;
    return { ...(obj as object), channel_values: { ...values, messages: await storeMessages(messages) } };
  };

  /**
   * A message's stored form: its reference and the values to store under it (the message's JSON, and
   * the long strings in it), or a null reference for a message short enough to stay in the checkpoint;
   * undefined when the inner serializer does not write it as JSON.
   */
  const serializeMessage = async (message: unknown): Promise<SerializedMessage | undefined> => {
    const [type, data] = await inner.dumpsTyped(message);
    if (type !== "json") return undefined;
    if (data.length < MESSAGE_REF_CHARS) return { ref: null, values: new Map() };
    const { lean: body, values } = extract(decoder.decode(data));
    const hash = createHash("sha256").update(body).digest("hex");
    values.set(hash, body);
    return { ref: `\u0000dfm:${hash}`, values };
  };

  /**
   * Messages being serialized right now, shared with the writes that come meanwhile: LangGraph writes a
   * step's pending writes all at once, and every `Send` of a turn's tool calls carries the same messages,
   * so each would serialize them before the first is remembered. Each write still stores the values
   * itself, in its own statement.
   */
  const serializing = new WeakMap<object, { fields: unknown[]; result: Promise<SerializedMessage | undefined> }>();

  /**
   * The list with each long enough message stored and replaced by its reference. Used for a checkpoint's
   * `messages` channel and for a pending write that is a list of messages (a hook node writes back the whole
   * list it was given).
   */
  const storeMessages = async (messages: readonly unknown[]): Promise<unknown[]> => {
    const stored = new Map<string, string>();
    const fresh: [object, StoredMessage][] = [];
    const mine: object[] = [];
    const now = Date.now();
    const refs: unknown[] = new Array(messages.length);
    try {
      for (let i = 0; i < messages.length; i++) {
        const message: unknown = messages[i];
        const isObject = typeof message === "object" && message !== null;
        const known = isObject ? entryFor(message, now) : undefined;
        if (known !== undefined) {
          refs[i] = known ?? message;
          continue;
        }
        // What the message is made of now: the entry remembered for it is checked against these.
        const fields = isObject ? messageFields(message) : [];
        let result: Promise<SerializedMessage | undefined>;
        if (isObject) {
          const pending = serializing.get(message);
          if (pending !== undefined && sameFields(pending.fields, fields)) result = pending.result;
          else {
            result = serializeMessage(message);
            serializing.set(message, { fields, result });
            mine.push(message);
          }
        } else result = serializeMessage(message);
        const serialized = await result;
        if (serialized === undefined) {
          refs[i] = message; // not JSON: left to the inner serializer, as it is
          continue;
        }
        if (isObject) fresh.push([message, { ref: serialized.ref, at: now, fields }]);
        if (serialized.ref === null) {
          refs[i] = message; // short: it stays in the checkpoint
          continue;
        }
        for (const [hash, text] of serialized.values) stored.set(hash, text);
        refs[i] = serialized.ref;
      }
      // Stored before (or with) the checkpoint that refers to them, and remembered only once stored: a
      // checkpoint written later must not refer to a message whose write failed without storing it.
      if (stored.size > 0) await table.put(stored);
    } finally {
      for (const message of mine) serializing.delete(message);
    }
    const remember = () => {
      for (const [message, entry] of fresh) storedMessages.set(message, entry);
    };
    if (stored.size > 0 && table.whenStored) table.whenStored(remember);
    else remember();
    return refs;
  };

  /**
   * A `Send` whose argument carries the state's messages, with them stored: langchain's agent sends each
   * tool call to the tool node with the whole state, and LangGraph writes every `Send` as a pending write,
   * so a turn of n tool calls serialized the conversation n times (400 calls in one answer: 400 copies of
   * a 100 KB message). Written as the plain object JSON would give (`lg_name`, `node`, `args`, `timeout`).
   */
  const withSendMessagesStored = async (send: SendLike): Promise<unknown> => {
    const { messages, ...rest } = send.args as { messages: unknown[] };
    const json = { lg_name: "Send", node: send.node, args: { ...rest, messages: await storeMessages(messages) } };
    return send.timeout === undefined ? json : { ...json, timeout: send.timeout };
  };

  /**
   * `obj` with its messages stored: a checkpoint's `messages` channel, a written list of messages, or the
   * state a `Send` carries.
   */
  const storedForm = async (obj: unknown): Promise<unknown> => {
    if (isSendWithMessages(obj)) return withSendMessagesStored(obj);
    if (!Array.isArray(obj)) return withMessagesStored(obj);
    return obj.length > 0 && obj.every((item) => isBaseMessage(item)) ? storeMessages(obj) : obj;
  };

  const serde = Object.create(inner) as Serde;
  serde.dumpsTyped = async (obj: unknown) => {
    const [type, data] = await inner.dumpsTyped(table.writable ? await storedForm(obj) : obj);
    if (!table.writable || type !== "json" || data.length < thresholdChars) return [type, data];
    const { lean, values } = extract(decoder.decode(data));
    if (values.size === 0) return [type, data];
    // Stored before the checkpoint that refers to them is written.
    await table.put(values);
    return [type, encoder.encode(lean)];
  };
  serde.loadsTyped = async (type: string, data: Uint8Array | string) => {
    if (type === "json") {
      const text = typeof data === "string" ? data : decoder.decode(data);
      if (text.includes(MESSAGE_MARK)) {
        const value = await inner.loadsTyped(type, await restore(text));
        if (table.writable) rememberLoaded(text, value);
        return value;
      }
      if (text.includes(MARK)) return inner.loadsTyped(type, await restore(text));
    }
    return inner.loadsTyped(type, data);
  };
  return serde;
}

/** LangGraph's `Send` as the serializer sees it (its class is not imported here: the checkpoint package has none). */
interface SendLike {
  lg_name: "Send";
  node: string;
  args: unknown;
  timeout?: unknown;
}

function isSendWithMessages(obj: unknown): obj is SendLike {
  if (typeof obj !== "object" || obj === null || (obj as { lg_name?: unknown }).lg_name !== "Send") return false;
  const messages = ((obj as SendLike).args as { messages?: unknown } | null)?.messages;
  return Array.isArray(messages) && messages.length > 0 && messages.every((item) => isBaseMessage(item));
}

/** A message ready to store (see `serializeMessage`). */
interface SerializedMessage {
  ref: string | null;
  values: Map<string, string>;
}

function sameFields(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((field, i) => field === b[i]);
}

/** How long a stored message is trusted to still be in the table without storing it again. */
const STORED_MESSAGE_TTL_MS = 10 * 60 * 1000;

interface StoredMessage {
  /** The reference left in checkpoints; null for a message short enough to stay in them. */
  ref: string | null;
  at: number;
  /** {@link messageFields} when it was stored. */
  fields: unknown[];
}

/**
 * The fields a message's serialized form is made of, compared by identity: a message given a new content,
 * id, tool calls or kwargs object is serialized again. (Messages in a graph's state are not edited in
 * place; LangGraph's reducers replace them.)
 */
function messageFields(message: object): unknown[] {
  const m = message as Record<string, unknown>;
  return [
    m.content,
    m.id,
    m.name,
    m.tool_calls,
    m.invalid_tool_calls,
    m.tool_call_id,
    m.status,
    m.artifact,
    m.additional_kwargs,
    m.response_metadata,
    m.usage_metadata,
    m.lc_kwargs,
  ];
}

/**
 * Deletes stored values no checkpoint, pending write or stored message refers to any more (after
 * pruning or deleting threads; a long string inside a stored message goes a prune after its message). A full scan: `deerflow threads prune` runs it, not every run. Returns how many it removed.
 */
export function collectLargeValues(db: Database.Database): number {
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'large_values'").get()) return 0;
  return db
    .prepare(
      `DELETE FROM large_values WHERE NOT EXISTS (SELECT 1 FROM checkpoints WHERE instr(CAST(checkpoint AS TEXT), large_values.hash) > 0)
       AND NOT EXISTS (SELECT 1 FROM writes WHERE instr(CAST(value AS TEXT), large_values.hash) > 0)
       AND NOT EXISTS (SELECT 1 FROM large_values AS stored WHERE stored.hash <> large_values.hash AND instr(stored.body, large_values.hash) > 0)`,
    )
    .run().changes;
}

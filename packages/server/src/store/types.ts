/**
 * The LangGraph store API (`client.store.*`) on the thread database: JSON items under a namespace (a
 * path of labels) and a key, with an optional time to live. Every item belongs to the person who put it:
 * each call names the owner and sees only that owner's items, so two people may use the same namespace
 * and never meet.
 *
 * A namespace is stored as its labels, each followed by U+001F (a character a label may not hold), so a
 * namespace prefix is a plain string prefix: `["a"]` is `a\u001f`, which `["a", "b"]` starts with and
 * `["ab"]` does not.
 */

/** One item as the API answers it. */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** A stored row. */
export interface ItemRow {
  namespace: string;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

/** Items of one owner (`null`: the home's local user). TTLs are in minutes; null: the item never expires. */
export interface ItemStore {
  put(owner: string | null, namespace: string[], key: string, value: unknown, ttlMinutes: number | null): Promise<void>;
  /** The item, or null when absent or expired; `refreshTtl` restarts its time to live. */
  get(owner: string | null, namespace: string[], key: string, refreshTtl: boolean): Promise<StoreItem | null>;
  delete(owner: string | null, namespace: string[], key: string): Promise<void>;
  /** Unexpired rows whose namespace starts with `prefix`, most recently updated first; `page` pages in SQL. */
  rowsUnder(owner: string | null, prefix: string[], page?: { limit: number; offset: number }): Promise<ItemRow[]>;
  /** Restarts the time to live of these items (search with `refresh_ttl`). */
  refresh(owner: string | null, items: { namespace: string[]; key: string }[]): Promise<void>;
  /** The distinct namespaces of the owner's unexpired items. */
  namespaces(owner: string | null): Promise<string[][]>;
  /** Deletes expired items; answers how many. */
  sweep(): Promise<number>;
  close(): void;
}

/** The separator after each label. */
export const LABEL_END = "\u001f";

/** The stored form of a namespace. */
export const encodeNamespace = (labels: readonly string[]): string => labels.map((label) => label + LABEL_END).join("");

/** A stored namespace's labels. */
export const decodeNamespace = (stored: string): string[] => (stored ? stored.slice(0, -1).split(LABEL_END) : []);

/** The key a missing owner is stored under. */
export const ownerKey = (owner: string | null): string => owner ?? "";

/** When an item put now with `ttlMinutes` expires (null: never). */
export const expiryOf = (ttlMinutes: number | null, from = Date.now()): string | null =>
  ttlMinutes == null ? null : new Date(from + ttlMinutes * 60_000).toISOString();

/** A row as the API answers it. */
export function itemOf(row: ItemRow): StoreItem {
  return {
    namespace: decodeNamespace(row.namespace),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

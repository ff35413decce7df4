/**
 * The LangGraph store API (`client.store.*`, contract §A.3 "Store") on the thread database:
 *
 * - `PUT /store/items {namespace, key, value, index?, ttl?}` → 204 (`ttl` in minutes; `index` is accepted
 *   and ignored: there is no vector index, `query` matches text instead).
 * - `GET /store/items?namespace=a.b&key=k&refresh_ttl=` → the item, or `null` when there is none.
 * - `DELETE /store/items {namespace, key}` → 204.
 * - `POST /store/items/search {namespace_prefix, filter?, limit=10, offset=0, query?, refresh_ttl?}` →
 *   `{items}`, most recently updated first: `filter` keeps items whose value has each given top-level field
 *   equal to the given JSON value; `query` keeps items whose value's JSON text contains it (ignoring case).
 * - `POST /store/namespaces {prefix?, suffix?, max_depth?, limit=100, offset=0}` → `{namespaces}`.
 *
 * Every item is the caller's: another person's items are never listed, read, replaced or deleted, even
 * under the same namespace and key. Expired items are invisible at once and deleted by the sweep.
 */
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { parseBody, parseQuery } from "../http/validate.js";
import { itemOf } from "../store/types.js";

const Label = z
  .string()
  .min(1, "namespace labels must not be empty")
  .max(200)
  .refine((label) => !label.includes(".") && !label.includes("\u001f"), "namespace labels may not contain '.'");
const Namespace = z.array(Label).max(20, "a namespace has at most 20 labels");
const Key = z.string().min(1, "must not be empty").max(1000);
const Ttl = z.number().positive("must be a positive number of minutes").max(525_600_0).nullish();

const PutSchema = z.strictObject({
  namespace: Namespace.min(1, "give at least one namespace label"),
  key: Key,
  value: z.record(z.string(), z.unknown(), { error: "must be a JSON object" }),
  index: z.union([z.literal(false), z.array(z.string())]).nullish(),
  ttl: Ttl,
});
const GetQuery = z.object({
  namespace: z.string().min(1, "give the namespace as labels joined by '.'"),
  key: Key,
  refresh_ttl: z.enum(["true", "false"]).optional(),
});
const DeleteSchema = z.strictObject({ namespace: Namespace.min(1, "give at least one namespace label"), key: Key });
const SearchSchema = z.strictObject({
  namespace_prefix: Namespace.default([]),
  filter: z.record(z.string(), z.unknown()).nullish(),
  limit: z.number().int().min(1).max(1000).default(10),
  offset: z.number().int().min(0).default(0),
  query: z.string().max(1000).nullish(),
  refresh_ttl: z.boolean().nullish(),
});
const NamespacesSchema = z.strictObject({
  prefix: Namespace.nullish(),
  suffix: Namespace.nullish(),
  max_depth: z.number().int().min(1).nullish(),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
});

const startsWith = (labels: string[], prefix: string[]) => prefix.every((label, index) => labels[index] === label);
const endsWith = (labels: string[], suffix: string[]) =>
  suffix.length <= labels.length &&
  suffix.every((label, index) => labels[labels.length - suffix.length + index] === label);

/** Registers the store routes. */
export const registerStoreRoutes: RegisterRoutes = (api, context) => {
  const items = context.items;

  api.put("/store/items", async (c) => {
    const body = await parseBody(c, PutSchema);
    await items.put(callerOf(c).userId, body.namespace, body.key, body.value, body.ttl ?? null);
    return c.body(null, 204);
  });

  api.get("/store/items", async (c) => {
    const query = parseQuery(c, GetQuery);
    const namespace = query.namespace.split(".");
    if (namespace.some((label) => label === ""))
      return c.json({ detail: 'Invalid query field "namespace": a label is empty (two dots, or one at an end).' }, 422);
    return c.json(await items.get(callerOf(c).userId, namespace, query.key, query.refresh_ttl === "true"));
  });

  api.delete("/store/items", async (c) => {
    const body = await parseBody(c, DeleteSchema);
    await items.delete(callerOf(c).userId, body.namespace, body.key);
    return c.body(null, 204);
  });

  api.post("/store/items/search", async (c) => {
    const body = await parseBody(c, SearchSchema);
    const owner = callerOf(c).userId;
    const needle = body.query?.toLowerCase();
    const filter = body.filter && Object.keys(body.filter).length > 0 ? body.filter : undefined;
    // Without a filter or query the database pages; with one, the prefix's rows are matched here.
    const window = { limit: body.limit, offset: body.offset };
    const rows = await items.rowsUnder(owner, body.namespace_prefix, needle || filter ? undefined : window);
    const matches = rows.filter((row) => {
      if (needle && !row.value.toLowerCase().includes(needle)) return false;
      if (!filter) return true;
      const value = JSON.parse(row.value) as Record<string, unknown>;
      return Object.entries(filter).every(([field, wanted]) => isDeepStrictEqual(value[field], wanted));
    });
    const page = (needle || filter ? matches.slice(body.offset, body.offset + body.limit) : matches).map(itemOf);
    if (body.refresh_ttl) await items.refresh(owner, page);
    return c.json({ items: page });
  });

  api.post("/store/namespaces", async (c) => {
    const body = await parseBody(c, NamespacesSchema);
    const seen = new Set<string>();
    const out: string[][] = [];
    for (const labels of await items.namespaces(callerOf(c).userId)) {
      if (body.prefix && !startsWith(labels, body.prefix)) continue;
      if (body.suffix && !endsWith(labels, body.suffix)) continue;
      const cut = body.max_depth ? labels.slice(0, body.max_depth) : labels;
      const id = JSON.stringify(cut);
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(cut);
    }
    return c.json({ namespaces: out.slice(body.offset, body.offset + body.limit) });
  });
};

/**
 * Memory (contract §B.4 tier 1, inventory §7.7): what the agent remembers about the user, shown and
 * edited in DeerFlow's settings page. Every change goes through the harness's memory store, which
 * validates, locks and writes atomically, exactly as the memory updater and `deerflow memory` do; the
 * next run sees the change because the lead graph is keyed by its memory block.
 *
 * On the wire the document uses DeerFlow's `user` key (our file says `userContext`); import accepts
 * either, checked strictly, and a bad document changes nothing.
 */
import { randomBytes } from "node:crypto";
import { addManualFact, type Memory, openMemoryStore, parseMemoryText, type MemoryStore } from "@deerflow/harness";
import { z } from "zod";
import { callerOf } from "../auth/caller.js";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { parseBody, parseQuery } from "../http/validate.js";

const AgentQuery = z.strictObject({
  agent_name: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, "must be letters, digits and '-'")
    .optional(),
});
const Content = z.string().trim().min(1, "must not be empty").max(4000);
const Category = z.string().trim().min(1).max(64);
const Confidence = z.number().min(0).max(1);
const FactSchema = z.strictObject({
  content: Content,
  category: Category.default("context"),
  confidence: Confidence.default(0.9),
});
const FactPatchSchema = z.strictObject({
  content: Content.optional(),
  category: Category.optional(),
  confidence: Confidence.optional(),
});
const FactId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be a fact id from GET /memory");

/** The document as DeerFlow's UI reads it. */
export function memoryToWire(memory: Memory): Record<string, unknown> {
  const { userContext, ...rest } = memory;
  return {
    version: rest.version,
    lastUpdated: rest.lastUpdated,
    user: userContext,
    history: rest.history,
    facts: rest.facts,
  };
}

/** The caller's memory of an agent: each user has their own (the local user: the home's files). */
function storeFor(context: ServerContext, agentName: string | undefined, userId: string | null): MemoryStore {
  const user = userId ?? undefined;
  return (
    context.harness.memory(agentName, user)?.store ??
    openMemoryStore(context.config, {
      home: context.harness.home,
      agentName,
      userId: user,
      onWarning: context.options.log,
    })
  );
}

/** Registers the memory routes. */
export const registerMemoryRoutes: RegisterRoutes = (api, context) => {
  const store = (c: Parameters<typeof parseQuery>[0]) =>
    storeFor(context, parseQuery(c, AgentQuery).agent_name, callerOf(c).userId);
  const now = () => new Date().toISOString();

  api.get("/memory", (c) => c.json(memoryToWire(store(c).load())));

  api.delete("/memory", (c) => {
    const memory = store(c);
    memory.clear();
    return c.json(memoryToWire(memory.load()));
  });

  api.post("/memory/facts", async (c) => {
    const memory = store(c);
    const body = await parseBody(c, FactSchema);
    const max = context.config.memory.max_facts;
    const fact = {
      id: `fact_${randomBytes(6).toString("hex")}`,
      content: body.content,
      category: body.category,
      confidence: body.confidence,
      createdAt: now(),
      source: "manual",
    };
    const next = memory.update((current) => {
      const added = addManualFact(current, fact, max);
      if ("memory" in added) return added.memory;
      if (added.refused.reason === "duplicate")
        throw new HttpError(
          409,
          `Memory already holds this fact (${added.refused.existing.id}: "${added.refused.existing.content}"). Edit that fact instead of adding it again.`,
        );
      throw new HttpError(
        409,
        `Memory is full (memory.max_facts is ${max}) and every stored fact is at least as confident as this one, so it was not stored. Give it a higher confidence or delete a fact first.`,
      );
    });
    return c.json(memoryToWire(next));
  });

  api.patch("/memory/facts/:fact_id", async (c) => {
    const memory = store(c);
    const id = FactId.safeParse(c.req.param("fact_id"));
    if (!id.success) throw new HttpError(422, `Invalid path field "fact_id": ${id.error.issues[0]!.message}.`);
    const body = await parseBody(c, FactPatchSchema);
    const next = memory.update((current) => {
      const index = current.facts.findIndex((fact) => fact.id === id.data);
      if (index < 0) throw notFound(`Fact ${id.data}`);
      const facts = [...current.facts];
      facts[index] = {
        ...facts[index]!,
        ...Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)),
      };
      return { ...current, facts, lastUpdated: now() };
    });
    return c.json(memoryToWire(next));
  });

  api.delete("/memory/facts/:fact_id", (c) => {
    const memory = store(c);
    const id = c.req.param("fact_id");
    if (!FactId.safeParse(id).success || !memory.forgetFact(id)) throw notFound(`Fact ${id.slice(0, 128)}`);
    return c.json(memoryToWire(memory.load()));
  });

  api.get("/memory/export", (c) => {
    const body = `${JSON.stringify(memoryToWire(store(c).load()), null, 2)}\n`;
    return c.body(body, 200, {
      "content-type": "application/json; charset=utf-8",
      "content-disposition": 'attachment; filename="memory.json"',
    });
  });

  api.post("/memory/import", async (c) => {
    const memory = store(c);
    const raw = await parseBody(c, z.unknown());
    const document =
      raw && typeof raw === "object" && !Array.isArray(raw) && "memory" in raw
        ? (raw as { memory: unknown }).memory
        : raw;
    const parsed = parseMemoryText(JSON.stringify(document ?? null));
    if (!parsed.ok) throw new HttpError(422, `The import is ${parsed.reason}. The current memory was left unchanged.`);
    memory.save(parsed.memory);
    return c.json(memoryToWire(memory.load()));
  });

  api.get("/memory/config", (c) => {
    const settings = context.config.memory;
    return c.json({
      enabled: settings.enabled,
      injection_enabled: settings.injection_enabled,
      max_facts: settings.max_facts,
      debounce_seconds: settings.debounce_seconds,
    });
  });
};

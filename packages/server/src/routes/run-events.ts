/**
 * `GET /threads/{id}/runs/{run_id}/events?event_types=&task_id=&limit=&after_seq=`: a run's events as
 * DeerFlow's run journal lists them, `[{seq, event_type, content, metadata, created_at}]`, oldest first.
 * DeerFlow's frontend reads `event_types=subagent.step&task_id=...` to show a subagent card's steps after a
 * reload, paging forward with `after_seq` until a page is short.
 *
 * Read from the run's event log, so it answers for a finished run while the log is kept (10 minutes, or
 * as long as the Redis/Postgres log keeps it); a run still going, or one whose log is gone, answers [].
 * Each `task_running` custom event becomes a `subagent.step` whose content is the step the frontend draws
 * (`message_index`, `kind`, `text`, `tool_calls`, `tool_name`); every other event keeps its stream name.
 */
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { notFound } from "../http/errors.js";
import { parseQuery, pathId } from "../http/validate.js";
import type { StreamEvent } from "../runs/types.js";
import { requireThread } from "../runs/threads.js";

const QuerySchema = z.object({
  event_types: z.string().optional(),
  task_id: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(500),
  after_seq: z.coerce.number().int().min(0).optional(),
});

interface JournalEvent {
  seq: number;
  event_type: string;
  content: unknown;
  metadata: Record<string, unknown>;
}

type Message = { type?: string; content?: unknown; name?: string; tool_calls?: { name?: string; args?: unknown }[] };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (typeof block === "string" ? block : ((block as { text?: unknown })?.text ?? "")))
    .filter((text): text is string => typeof text === "string" && text !== "")
    .join("\n");
}

/** The journal entry of one stream event. */
function journalEvent(event: StreamEvent, seq: number): JournalEvent {
  const data = JSON.parse(event.data) as unknown;
  const custom = data as { type?: string; task_id?: string; message?: Message; message_index?: number };
  if (event.event === "custom" && custom?.type === "task_running" && custom.message) {
    const message = custom.message;
    const kind = message.type === "tool" ? "tool" : "ai";
    return {
      seq,
      event_type: "subagent.step",
      content: {
        task_id: custom.task_id,
        message_index: custom.message_index ?? 0,
        kind,
        text: textOf(message.content),
        ...(kind === "tool"
          ? { tool_name: message.name }
          : { tool_calls: (message.tool_calls ?? []).map((call) => ({ name: call.name, args: call.args })) }),
      },
      metadata: { task_id: custom.task_id },
    };
  }
  return { seq, event_type: event.event, content: data, metadata: {} };
}

/** Registers the run events route. */
export const registerRunEventRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/runs/:run_id/events", async (c) => {
    const threadId = pathId(c, "thread_id");
    const runId = c.req.param("run_id");
    const query = parseQuery(c, QuerySchema);
    await requireThread(context, callerOf(c), threadId);
    const run = await context.runs.get(runId);
    if (!run || run.thread_id !== threadId) throw notFound(`Run ${runId} in thread ${threadId}`);
    if (!(await context.events.ended(runId))) return c.json([]);
    const types = query.event_types
      ?.split(",")
      .map((type) => type.trim())
      .filter(Boolean);
    const out: JournalEvent[] = [];
    let seq = 0;
    const stop = new AbortController();
    for await (const event of context.events.follow(runId, "-1", stop.signal)) {
      if ("gap" in event || event.event === "end") break;
      seq += 1;
      if (query.after_seq !== undefined && seq <= query.after_seq) continue;
      if (event.event === "metadata") continue;
      const entry = journalEvent(event, seq);
      if (types?.length && !types.includes(entry.event_type)) continue;
      if (query.task_id && entry.metadata.task_id !== query.task_id) continue;
      out.push(entry);
      if (out.length >= query.limit) break;
    }
    stop.abort();
    return c.json(out);
  });
};

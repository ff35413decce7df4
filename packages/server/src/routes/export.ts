/**
 * `GET /threads/{id}/export?format=md|json`: the conversation as a download (Markdown, or JSON with
 * `{title, thread_id, created_at, exported_at, messages: [{type, id, content}]}`), the whole of it: the
 * compacted history's messages too. DeerFlow's frontend builds its export in the browser from the
 * messages it holds; this route serves our web app, the CLI and scripts. `markdown` is taken for `md`.
 */
import { EXPORT_FORMATS, type ExportFormat, exportConversation, exportFileName } from "@deerflow/harness";
import { z } from "zod";
import type { RegisterRoutes } from "../context.js";
import { callerOf } from "../auth/caller.js";
import { parseQuery, pathId } from "../http/validate.js";
import { requireThread } from "../runs/threads.js";

const QuerySchema = z.object({
  format: z.enum([...EXPORT_FORMATS, "markdown"], { error: "must be md (or markdown) or json" }).default("md"),
});

const CONTENT_TYPES: Record<ExportFormat, string> = {
  md: "text/markdown; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** Registers the export route. */
export const registerExportRoutes: RegisterRoutes = (api, context) => {
  api.get("/threads/:thread_id/export", async (c) => {
    const threadId = pathId(c, "thread_id");
    const query = parseQuery(c, QuerySchema);
    const format: ExportFormat = query.format === "markdown" ? "md" : query.format;
    const thread = await requireThread(context, callerOf(c), threadId);
    const title = typeof thread.values?.title === "string" ? thread.values.title : null;
    const text = exportConversation(
      { threadId, title, createdAt: thread.created_at },
      await context.harness.history(threadId),
      format,
    );
    const name = exportFileName(title, format);
    c.header("Content-Type", CONTENT_TYPES[format]);
    c.header(
      "Content-Disposition",
      `attachment; filename="${name.replace(/[^\x20-\x7e]/g, "_").replace(/"/g, "")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    );
    return c.body(text);
  });
};

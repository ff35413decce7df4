/**
 * `deerflow threads [--limit N]`: the saved threads, newest first, with title, message count and last
 * update. `deerflow threads delete ID`: removes a thread's checkpoints, archived history and files,
 * unless a run holds it. `deerflow threads prune [--retention runs|latest|all]`: applies a checkpoint
 * retention policy (default: the config's) to every idle thread and vacuums the file (on Postgres it
 * reports the bytes the deleted rows took; the database reuses them itself).
 * `deerflow threads export ID [--format md|json] [--out FILE]`: the conversation as Markdown or JSON
 * (what `GET /threads/{id}/export` answers), to stdout or a file. Listing and export open the database
 * read-only (they work on a read-only home).
 */
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  collectLargeValues,
  collectPostgresLargeValues,
  createPostgresPruner,
  createSqlitePruner,
  EXPORT_FORMATS,
  type ExportFormat,
  exportConversation,
  isValidThreadId,
  mergeHistory,
  openPostgresThreadLeases,
  openThreadLeases,
  reclaimSpace,
  RETENTION_POLICIES,
  type RetentionPolicy,
  THREAD_ID_RULE,
} from "@deerflow/harness";
import { writeOut } from "../output.js";
import { terminalSafe } from "../terminal-text.js";
import { openThreadReader } from "../thread-reader.js";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

/** Entry point of `deerflow threads`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("threads", {
    args: argv,
    options: {
      config: { type: "string" },
      limit: { type: "string" },
      retention: { type: "string" },
      format: { type: "string" },
      out: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  const [action, id, ...extra] = parsed.positionals;
  if (action === "delete") {
    if (!id || extra.length > 0)
      throw new UsageError("Give one thread id: deerflow threads delete ID (deerflow threads lists them).");
    return deleteThread(parsed.values.config, id);
  }
  if (action === "export") {
    if (!id || extra.length > 0)
      throw new UsageError("Give one thread id: deerflow threads export ID [--format md|json] [--out FILE].");
    return exportThread(parsed.values.config, id, parsed.values.format, parsed.values.out);
  }
  if (action === "prune") {
    if (id !== undefined)
      throw new UsageError(
        "prune takes no thread id: deerflow threads prune [--retention runs|latest|all] applies to every thread.",
      );
    return pruneThreads(parsed.values.config, parsed.values.retention);
  }
  if (action !== undefined)
    throw new UsageError(
      `Unknown threads action "${action}". Use deerflow threads [--limit N], deerflow threads delete ID, deerflow threads export ID or deerflow threads prune.`,
    );
  const limitRaw = parsed.values.limit;
  const limit = limitRaw === undefined ? undefined : Number(limitRaw);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1))
    throw new UsageError(`--limit takes a whole number of at least 1, got "${limitRaw}".`);

  const reader = await openThreadReader(parsed.values.config);
  try {
    const ids = await reader.listThreadIds(limit);
    if (ids.length === 0) {
      writeOut(`No threads yet in ${reader.home}. Start one with: deerflow run "task"\n`);
      return 0;
    }
    for (const threadId of ids) {
      const saved = await reader.read(threadId);
      const updated = saved?.updatedAt ? saved.updatedAt.replace("T", " ").slice(0, 19) : "?";
      const count = saved?.values.messages?.length ?? 0;
      writeOut(
        `${threadId}  ${updated}  ${String(count).padStart(3)} messages  ${terminalSafe(saved?.values.title ?? "(untitled)")}\n`,
      );
    }
    return 0;
  } finally {
    await reader.close();
  }
}

async function deleteThread(configPath: string | undefined, threadId: string): Promise<number> {
  if (!isValidThreadId(threadId)) throw new UsageError(`Thread id "${threadId}" is not valid: use ${THREAD_ID_RULE}.`);
  const reader = await openThreadReader(configPath, { writable: true });
  const leases = reader.postgres ? openPostgresThreadLeases(reader.postgres.pool) : openThreadLeases(reader.store.file);
  try {
    // Held while deleting, so no run starts on the thread meanwhile; a running one makes this fail.
    const lease = await leases.acquire(threadId);
    try {
      const hadCheckpoints = await reader.deleteThread(threadId);
      await reader.archive.delete(threadId);
      const dir = path.join(reader.home, "threads", threadId);
      rmSync(dir, { recursive: true, force: true });
      if (!hadCheckpoints) {
        process.stderr.write(`No thread ${threadId} in ${reader.where}. deerflow threads lists the saved threads.\n`);
        return 1;
      }
      process.stderr.write(`Deleted thread ${threadId} (checkpoints, history and ${dir})\n`);
      return 0;
    } finally {
      lease.release();
    }
  } finally {
    await leases.close();
    await reader.close();
  }
}

async function exportThread(
  configPath: string | undefined,
  threadId: string,
  formatRaw: string | undefined,
  out: string | undefined,
): Promise<number> {
  if (!isValidThreadId(threadId)) throw new UsageError(`Thread id "${threadId}" is not valid: use ${THREAD_ID_RULE}.`);
  const format = (formatRaw === "markdown" ? "md" : (formatRaw ?? "md")) as ExportFormat;
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format takes md (or markdown) or json, got "${formatRaw}".`);
  const reader = await openThreadReader(configPath);
  try {
    const saved = await reader.read(threadId);
    if (!saved) {
      process.stderr.write(`No thread ${threadId} in ${reader.where}. deerflow threads lists the saved threads.\n`);
      return 1;
    }
    const entries = mergeHistory(await reader.archive.read(threadId), saved.values.messages ?? []);
    const title = typeof saved.values.title === "string" ? saved.values.title : null;
    const text = exportConversation({ threadId, title, createdAt: null }, entries, format);
    if (out === undefined) {
      writeOut(text);
      return 0;
    }
    writeFileSync(out, text);
    process.stderr.write(`Exported thread ${threadId} to ${out}\n`);
    return 0;
  } finally {
    await reader.close();
  }
}

async function pruneThreads(configPath: string | undefined, retentionRaw: string | undefined): Promise<number> {
  if (retentionRaw !== undefined && !(RETENTION_POLICIES as readonly string[]).includes(retentionRaw)) {
    throw new UsageError(`--retention takes one of ${RETENTION_POLICIES.join(", ")}, got "${retentionRaw}".`);
  }
  const reader = await openThreadReader(configPath, { writable: true });
  const policy = (retentionRaw ?? reader.config.checkpoints.retention) as RetentionPolicy;
  const postgres = reader.postgres;
  const leases = postgres ? openPostgresThreadLeases(postgres.pool) : openThreadLeases(reader.store.file);
  try {
    const pruner = postgres ? createPostgresPruner(postgres.pool) : createSqlitePruner(reader.store.db);
    let checkpoints = 0;
    let threads = 0;
    let bytes = 0;
    const busy: string[] = [];
    for (const threadId of await reader.listThreadIds()) {
      // A thread a run holds keeps its steps (crash-resume needs them); a later prune catches up.
      if (await leases.holder(threadId)) {
        busy.push(threadId);
        continue;
      }
      const lease = await leases.acquire(threadId);
      try {
        const report = await pruner.pruneThread(threadId, policy);
        checkpoints += report.checkpoints;
        threads += report.threads;
        bytes += report.bytes ?? 0;
      } finally {
        await lease.release();
      }
    }
    const skipped = busy.length > 0 ? ` Skipped busy threads: ${busy.join(", ")}.` : "";
    if (postgres) {
      // Long values only pruned checkpoints referred to go too; Postgres reuses the space of deleted rows
      // itself (autovacuum), so the report is what the rows took.
      if (busy.length === 0) bytes += (await collectPostgresLargeValues(postgres.pool)).bytes;
      process.stderr.write(
        `Pruned ${checkpoints} checkpoints from ${threads} threads (retention: ${policy}); ${size(bytes)} of rows freed in ${reader.where}.${skipped}\n`,
      );
      return 0;
    }
    // Long values only pruned checkpoints referred to go too (a full scan: here, not after every run).
    if (busy.length === 0) collectLargeValues(reader.store.db);
    const freed = reclaimSpace(reader.store.db, true);
    process.stderr.write(
      `Pruned ${checkpoints} checkpoints from ${threads} threads (retention: ${policy}); the file shrank by ${mib(freed)} MiB.${skipped}\n`,
    );
    return 0;
  } finally {
    await leases.close();
    await reader.close();
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const size = (bytes: number) => (bytes >= 2 ** 20 ? `${mib(bytes)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`);

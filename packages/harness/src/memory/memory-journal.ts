/**
 * Conversations still waiting to be learned from, kept on disk so that none is lost when the process
 * that heard them ends first. A memory update is a model call of several seconds; the CLI exits about
 * two seconds after its answer and a server can be stopped at any moment, so every conversation the
 * memory queue takes is written here first and removed only once an update learned from it (or gave
 * up on it). The next process that opens the home adopts the entries nobody holds any more and learns
 * from them in the background (`resumePendingMemory`).
 *
 * One file per user's memory root, `memory-pending.json` beside that user's `memory.json` (`{root}` for
 * the local user, `{root}/users/{id}` for a user of a multi-user server). Each entry names its agent,
 * its user and thread (a newer conversation of the same thread replaces the entry: it contains the
 * older one) and the process holding it. A holder is gone when it released the entry on close, when
 * its pid is dead on this host, or when it has not touched the entry for `staleMs` (a holder on another
 * host sharing the home). Every change is a locked read-modify-write, written atomically.
 *
 * A journal per user, rather than one shared file: an older process on the same home (a rolling
 * upgrade, an old CLI) knows only the root journal, so it can never take a user's conversation for the
 * local user's and learn it into the local memory.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { isProcessAlive, removeOrphanTempFiles, writeFileAtomic } from "./atomic-write.js";
import { withFileLock } from "./file-lock.js";
import type { MemoryJob } from "./memory-queue.js";
import { type MemorySignal, mergeMemorySignals } from "./memory-signals.js";

/** The signals of an entry this version knows; a newer writer's other names are dropped. */
const knownSignals = (names: readonly string[] | undefined): MemorySignal[] =>
  mergeMemorySignals(
    names?.filter((name): name is MemorySignal => name === "correction" || name === "reinforcement"),
    [],
  );

/** The journal's file name inside the memory root. */
export const MEMORY_JOURNAL_FILE = "memory-pending.json";

/** A holder that has not touched its entry for this long (15 min) is taken to be gone. */
const DEFAULT_STALE_MS = 15 * 60_000;

/** The process holding an entry: it queued or adopted the conversation and has not finished it. */
export const JournalHolder = z.object({ pid: z.number().int(), host: z.string(), since: z.string() });
export type JournalHolder = z.infer<typeof JournalHolder>;

/** One conversation waiting for a memory update. `agentName` absent: the default agent; `userId` absent: the local user. */
export const JournalEntry = z.object({
  id: z.string().min(1),
  agentName: z.string().optional(),
  userId: z.string().optional(),
  threadId: z.string().min(1),
  conversation: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.string() })),
  /** What the user's words showed ("correction", "reinforcement"); absent: nothing, or an older writer. Unknown names are ignored. */
  signals: z.array(z.string()).optional(),
  /** A conversation of its own (compacted turns): never replaced by, nor replacing, the thread's next one. */
  standalone: z.boolean().optional(),
  queuedAt: z.string(),
  /** Updates that failed so far (a call cut short by the process ending is not one). */
  attempts: z.number().int().nonnegative(),
  /** null once released: the next process to open the home adopts it. */
  holder: JournalHolder.nullable(),
});
export type JournalEntry = z.infer<typeof JournalEntry>;

/** The journal file, version 1. */
export const JournalFile = z.object({ version: z.literal(1), entries: z.array(JournalEntry) });
export type JournalFile = z.infer<typeof JournalFile>;

/** One agent's (and user's) view of the journal: what the memory queue of that agent records, settles and adopts. */
export interface MemoryJournal {
  /** The journal file. */
  readonly path: string;
  /** Records `job` as held by this process, replacing the entry of the same thread. */
  record(job: MemoryJob): void;
  /** Forgets `job` (learned from, or given up). A newer entry of the same thread is kept. */
  settle(job: MemoryJob): void;
  /** Stores `job.attempts` after a failed update; the entry stays, held by this process. */
  failed(job: MemoryJob): void;
  /** Takes over the entries of this agent whose holder is gone; returns them as jobs. */
  adopt(): MemoryJob[];
  /** Hands every entry of this agent that this process holds to the next process. */
  release(): void;
}

/** Options of {@link openMemoryJournal}. */
export interface MemoryJournalOptions {
  /** Receives what was handled: a corrupt journal set aside. */
  onWarning?: (message: string) => void;
  /** When a holder that has not touched its entry counts as gone (default 15 min). */
  staleMs?: number;
  /** The user whose conversations this view records and adopts (absent: the local user). */
  userId?: string;
}

/** Path of the journal of a user's memory root (`memoryUserRoot(...)`: `{root}` or `{root}/users/{id}`). */
export function memoryJournalPath(root: string): string {
  return path.join(root, MEMORY_JOURNAL_FILE);
}

function me(): JournalHolder {
  return { pid: process.pid, host: os.hostname(), since: new Date().toISOString() };
}

function isMine(holder: JournalHolder | null): boolean {
  return holder !== null && holder.pid === process.pid && holder.host === os.hostname();
}

/** True when nobody will finish the entry: released, holder dead on this host, or silent for `staleMs`. */
function isOrphaned(entry: JournalEntry, staleMs: number, now = Date.now()): boolean {
  const holder = entry.holder;
  if (holder === null) return true;
  if (isMine(holder)) return false;
  if (now - Date.parse(holder.since) > staleMs) return true;
  return holder.host === os.hostname() && !isProcessAlive(holder.pid);
}

type ReadResult = { ok: true; journal: JournalFile } | { ok: false };

function readJournal(file: string): ReadResult {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, journal: { version: 1, entries: [] } };
    throw error;
  }
  try {
    const parsed = JournalFile.safeParse(JSON.parse(text));
    return parsed.success ? { ok: true, journal: parsed.data } : { ok: false };
  } catch {
    return { ok: false };
  }
}

/**
 * Reads the journal under its lock. A file that is not a journal is moved aside (with a warning), so one
 * bad write never blocks memory for good.
 */
function readOrQuarantine(file: string, warn: (message: string) => void): JournalFile {
  const read = readJournal(file);
  if (read.ok) return read.journal;
  const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  fs.renameSync(file, aside);
  warn(`The memory journal ${file} is not readable; it was moved to ${aside} and memory goes on without it.`);
  return { version: 1, entries: [] };
}

/** Applies `change` to the journal under its lock; writes only when `change` returns true. */
function changeJournal<T>(
  file: string,
  warn: (message: string) => void,
  change: (journal: JournalFile) => { write: boolean; result: T },
): T {
  return withFileLock(`${file}.lock`, () => {
    const journal = readOrQuarantine(file, warn);
    const { write, result } = change(journal);
    if (write) {
      removeOrphanTempFiles(file);
      if (journal.entries.length === 0) fs.rmSync(file, { force: true });
      else writeFileAtomic(file, `${JSON.stringify(journal, null, 2)}\n`);
    }
    return result;
  });
}

/**
 * The agents (undefined: the default agent) that have journal entries nobody holds any more. Reads
 * without the lock: it only decides which memory services to open.
 */
export function orphanedJournalAgents(
  file: string,
  options: Pick<MemoryJournalOptions, "staleMs"> = {},
): (string | undefined)[] {
  if (!fs.existsSync(file)) return [];
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const read = readJournal(file);
  if (!read.ok) return [undefined]; // the default agent's service sets it aside when it adopts
  const journal = read.journal;
  const names = new Set<string | undefined>();
  for (const entry of journal.entries) if (isOrphaned(entry, staleMs)) names.add(entry.agentName);
  return [...names];
}

/**
 * Opens `agentName`'s view of the journal at `file` (see {@link memoryJournalPath}). Nothing is read or
 * created until used.
 *
 * @example
 * const journal = openMemoryJournal(memoryJournalPath(home), undefined);
 * journal.record({ id: "j1", threadId: "t1", conversation });  // before the update is attempted
 * journal.settle({ id: "j1", threadId: "t1", conversation });  // once it was applied
 */
export function openMemoryJournal(
  file: string,
  agentName: string | undefined,
  options: MemoryJournalOptions = {},
): MemoryJournal {
  const warn = options.onWarning ?? (() => {});
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const userId = options.userId;
  const ours = (entry: JournalEntry) => entry.agentName === agentName && entry.userId === userId;

  return {
    path: file,
    record(job) {
      changeJournal(file, warn, (journal) => {
        const replaced = job.standalone
          ? []
          : journal.entries.filter((entry) => ours(entry) && entry.threadId === job.threadId && !entry.standalone);
        journal.entries = journal.entries.filter((entry) => !replaced.includes(entry));
        // A signal seen in the replaced conversation (maybe by another process) stays with the thread.
        const signals = replaced.reduce(
          (all, entry) => mergeMemorySignals(all, knownSignals(entry.signals)),
          job.signals,
        );
        journal.entries.push({
          id: job.id ?? randomUUID(),
          ...(agentName === undefined ? {} : { agentName }),
          ...(userId === undefined ? {} : { userId }),
          threadId: job.threadId,
          conversation: job.conversation,
          ...(signals && signals.length > 0 ? { signals } : {}),
          ...(job.standalone ? { standalone: true } : {}),
          queuedAt: new Date().toISOString(),
          attempts: job.attempts ?? 0,
          holder: me(),
        });
        return { write: true, result: undefined };
      });
    },
    settle(job) {
      changeJournal(file, warn, (journal) => {
        const before = journal.entries.length;
        journal.entries = journal.entries.filter((entry) => entry.id !== job.id);
        return { write: journal.entries.length !== before, result: undefined };
      });
    },
    failed(job) {
      changeJournal(file, warn, (journal) => {
        const entry = journal.entries.find((candidate) => candidate.id === job.id);
        if (entry) Object.assign(entry, { attempts: job.attempts ?? 0, holder: me() });
        return { write: entry !== undefined, result: undefined };
      });
    },
    adopt() {
      return changeJournal(file, warn, (journal) => {
        const adopted = journal.entries.filter((entry) => ours(entry) && isOrphaned(entry, staleMs));
        for (const entry of adopted) entry.holder = me();
        return {
          write: adopted.length > 0,
          result: adopted.map(
            (entry): MemoryJob => ({
              id: entry.id,
              threadId: entry.threadId,
              conversation: entry.conversation,
              ...(entry.signals ? { signals: knownSignals(entry.signals) } : {}),
              attempts: entry.attempts,
              ...(entry.standalone ? { standalone: true } : {}),
              ...(entry.agentName === undefined ? {} : { agentName: entry.agentName }),
              ...(entry.userId === undefined ? {} : { userId: entry.userId }),
            }),
          ),
        };
      });
    },
    release() {
      if (!fs.existsSync(file)) return;
      changeJournal(file, warn, (journal) => {
        const held = journal.entries.filter((entry) => ours(entry) && isMine(entry.holder));
        for (const entry of held) entry.holder = null;
        return { write: held.length > 0, result: undefined };
      });
    },
  };
}

/**
 * Moves the local user's entries that nobody holds any more from the journal `from` into the journal
 * `to`, as `userId`'s, released for that user's memory service to adopt (see `adoptLocalMemory`).
 * Entries a live process holds stay: that process learns from them into the memory it has open.
 * Returns how many moved. Both journals are locked, `from` first.
 */
export function moveOrphanedEntries(
  from: string,
  to: string,
  userId: string,
  options: Omit<MemoryJournalOptions, "userId"> = {},
): number {
  if (!fs.existsSync(from)) return 0;
  const warn = options.onWarning ?? (() => {});
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  return changeJournal(from, warn, (source) => {
    const moving = source.entries.filter((entry) => entry.userId === undefined && isOrphaned(entry, staleMs));
    if (moving.length === 0) return { write: false, result: 0 };
    changeJournal(to, warn, (target) => {
      for (const entry of moving) {
        // One entry per agent and thread, as record() keeps it: the later conversation contains the earlier.
        const same = (held: JournalEntry) => held.agentName === entry.agentName && held.threadId === entry.threadId;
        const existing = target.entries.find(same);
        if (existing && existing.queuedAt >= entry.queuedAt) continue;
        target.entries = target.entries.filter((held) => !same(held));
        target.entries.push({ ...entry, userId, holder: null });
      }
      return { write: true, result: undefined };
    });
    source.entries = source.entries.filter((entry) => !moving.includes(entry));
    return { write: true, result: moving.length };
  });
}

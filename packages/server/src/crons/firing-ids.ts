/**
 * The ids of one firing, derived from the cron and its due time. A process that dies after starting a
 * firing's run but before recording it leaves the cron claimed; whoever handles that due time next
 * derives the same run id, finds the run, and records it instead of starting a second one.
 */
import { createHash } from "node:crypto";

/** A UUID (version 8, name-based) from SHA-256 of `name`. */
function nameUuid(name: string): string {
  const bytes = createHash("sha256").update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The run id and (stateless crons) thread id of the firing of `cronId` due at `dueAt`. */
export function firingIds(cronId: string, dueAt: Date): { runId: string; threadId: string } {
  const key = `${cronId}@${dueAt.toISOString()}`;
  return { runId: nameUuid(`run:${key}`), threadId: nameUuid(`thread:${key}`) };
}

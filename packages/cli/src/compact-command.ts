/**
 * `/compact` in `deerflow chat`: summarizes the thread's older messages now (DeerFlow's `/compact`), so
 * a long conversation can be shortened before the next question instead of when a trigger fires. It
 * holds the thread's lease like a turn does, so it never writes under a run of another process.
 */
import { compactThread, isHarnessError } from "@deerflow/harness";
import type { Session } from "./session.js";

/** Whether `line` asks for compaction (`/compact`, or DeerFlow's `/context compact`). */
export function isCompactCommand(line: string): boolean {
  return /^\/(?:compact|context\s+compact)$/i.test(line.trim());
}

/** Compacts the session's thread and tells the user what happened in one line. Never throws. */
export async function compactCommand(session: Session, say: (line: string) => void): Promise<void> {
  let lease: { release(): void } | undefined;
  try {
    lease = await session.leases.acquire(session.threadId, { waitMs: session.flags.waitSeconds * 1000 });
    const result = await compactThread(session.agent, session.threadId);
    if (result.compacted) {
      say(
        `compacted: ${result.removed_message_count} older message(s) summarized, ${result.preserved_message_count} kept (\`deerflow history --thread ${session.threadId}\` shows them all)`,
      );
    } else {
      say("nothing to compact: every message is in the recent part the thread keeps");
    }
  } catch (error) {
    if (isHarnessError(error) && error.code === "thread_invalid")
      say("nothing to compact: the thread has no messages yet");
    else say(`error: ${(error as Error).message}`);
  } finally {
    lease?.release();
  }
}

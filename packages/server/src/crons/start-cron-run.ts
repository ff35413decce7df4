/**
 * A firing as a run: the same createRun path as a client's request (so the run is visible, streamable,
 * cancellable and counted in the owner's quotas), made as the cron's owner, with the firing's derived
 * ids. A stateless cron's run gets a new thread, kept or deleted after the run by `on_run_completed`;
 * each run carries `cron_id` in its metadata so its runs can be found.
 */
import type { Caller } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { createRun } from "../runs/create-run.js";
import type { CronRecord } from "./types.js";

/** Starts the run of one firing of `cron`. */
export async function startCronRun(
  context: ServerContext,
  cron: CronRecord,
  ids: { runId: string; threadId: string },
): Promise<void> {
  const owner: Caller = { userId: cron.owner, name: "cron", admin: false, via: "open" };
  const body = {
    ...cron.payload,
    assistant_id: cron.assistant_id,
    metadata: { ...cron.metadata, cron_id: cron.cron_id },
    ...(cron.thread_id ? {} : { on_completion: cron.on_run_completed }),
  };
  await createRun(context, owner, cron.thread_id, body, {
    runId: ids.runId,
    ...(cron.thread_id ? {} : { temporaryThreadId: ids.threadId }),
  });
}

/**
 * A firing as a run: the same createRun path as a client's request (so the run is visible, streamable,
 * cancellable and counted in the owner's quotas), made as the cron's owner, with the firing's derived
 * ids. A stateless cron's run gets a new thread, kept or deleted after the run by `on_run_completed`;
 * each run carries `cron_id`, `cron_due_at` and `cron_trigger` (scheduled, or manual when a user fired
 * it now) in its metadata, so a cron's runs can be found and listed as its firings. A cron with
 * `deliver_to` gets a delivery row for the run, so its answer is posted to the chat when it ends.
 */
import type { Caller } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { createRun } from "../runs/create-run.js";
import { channelAddress } from "./channel-delivery.js";
import type { CronRecord } from "./types.js";

/** Starts the run of one firing of `cron`. */
export async function startCronRun(
  context: ServerContext,
  cron: CronRecord,
  ids: { runId: string; threadId: string },
  dueAt: Date,
  trigger: "scheduled" | "manual" = "scheduled",
): Promise<void> {
  const owner: Caller = { userId: cron.owner, name: "cron", admin: false, via: "open" };
  const body = {
    ...cron.payload,
    assistant_id: cron.assistant_id,
    metadata: { ...cron.metadata, cron_id: cron.cron_id, cron_due_at: dueAt.toISOString(), cron_trigger: trigger },
    ...(cron.thread_id ? {} : { on_completion: cron.on_run_completed }),
  };
  // The run does not exist yet: rows of its id are from an attempt a crash cut short (no doubles).
  await context.deliveries.forget(ids.runId);
  // Recorded before the run exists (as a webhook is), so no crash loses the firing's message.
  if (cron.deliver_to) await context.deliveries.expect(ids.runId, channelAddress(cron.deliver_to));
  try {
    await createRun(context, owner, cron.thread_id, body, {
      runId: ids.runId,
      ...(cron.thread_id ? {} : { temporaryThreadId: ids.threadId }),
    });
  } catch (error) {
    if (cron.deliver_to) await context.deliveries.forget(ids.runId);
    throw error;
  }
}

/**
 * Fires crons. Each process with a worker runs one scheduler: it sleeps on a timer set to the earliest
 * due time (woken early when a cron is created or changed, here or, on Postgres, in any process), then
 * claims the due crons, starts one ordinary run per due time to fire, and releases each cron with its
 * next due time. The claim (crons/types.ts) is what makes a due time fire in one process only; the
 * firing's derived run id (firing-ids.ts) is what makes a claim interrupted by a crash fire it once.
 *
 * After downtime, `catch_up` decides what the missed due times become: `none` fires none of them (a due
 * time more than a minute old counts as missed), `latest` fires the latest one, `all` fires each. When
 * the run of the cron's previous firing is still pending or running, the due time is skipped and
 * counted in the cron's `skipped`. A one-shot cron (`run_at`) fires its one time, late or not, and is
 * then left with no due time.
 */
import type { RunStatus } from "../runs/types.js";
import { createWakeups } from "../runs/wakeups.js";
import { firingIds } from "./firing-ids.js";
import { dueTimesUntil, nextDueAfter, parseSchedule } from "./schedule.js";
import type { ClaimedCron, CronOutcome, CronRecord, CronStore } from "./types.js";

/** A due time older than this is "missed" for catch_up: none. */
const MISSED_AFTER_MS = 60_000;
/** How long a claimed cron is kept from other processes while its firing starts. */
const CLAIM_LEASE_MS = 30_000;
/** Crons handled per claim. */
const BATCH = 20;
/** Shortest sleep between two looks at the store. */
const MIN_SLEEP_MS = 20;

/** What the scheduler works with. */
export interface SchedulerDeps {
  store: CronStore;
  /** Starts the firing's run with the given ids; throws (an HttpError) when it cannot start. */
  startRun(cron: CronRecord, ids: { runId: string; threadId: string }, dueAt: Date): Promise<void>;
  /** The status of a run, or null when there is no such run. */
  runStatus(runId: string): Promise<RunStatus | null>;
  /** Longest sleep without a look at the store (changes made by other processes also wake it on Postgres). */
  maxSleepMs: number;
  log: (line: string) => void;
  /** The clock (tests move it). */
  now?: () => Date;
}

/** The due times of a claimed cron to fire now, by its catch_up, and its next due time after now. */
export function plan(cron: CronRecord, now: Date): { fire: Date[]; next: Date | null } {
  if (cron.run_at) return { fire: [new Date(cron.run_at)], next: null };
  const schedule = parseSchedule(cron.schedule, cron.timezone);
  const end = cron.end_time ? Date.parse(cron.end_time) : Number.POSITIVE_INFINITY;
  const due = dueTimesUntil(schedule, new Date(cron.next_run_at!), now).filter((at) => at.getTime() <= end);
  const fire =
    cron.catch_up === "all"
      ? due
      : cron.catch_up === "latest"
        ? due.slice(-1)
        : due.filter((at) => now.getTime() - at.getTime() <= MISSED_AFTER_MS).slice(-1);
  return { fire, next: nextDueAfter(schedule, now, cron.end_time) };
}

/** The scheduler; `start()` begins firing, `wake()` re-reads the store now, `stop()` ends it. */
export function createCronScheduler(deps: SchedulerDeps) {
  const clock = deps.now ?? (() => new Date());
  const wakeups = createWakeups();
  let stopped = false;
  let loop: Promise<void> | undefined;

  /** Fires a claimed cron's due times and releases it. */
  async function handle(claim: ClaimedCron): Promise<void> {
    const { cron } = claim;
    const outcome: CronOutcome = { next_run_at: null, skipped: 0, last_error: cron.last_error };
    try {
      const { fire, next } = plan(cron, clock());
      outcome.next_run_at = next?.toISOString() ?? null;
      const previous = cron.last_run_id ? await deps.runStatus(cron.last_run_id) : null;
      const previousBusy = previous === "pending" || previous === "running";
      for (const dueAt of fire) {
        const ids = firingIds(cron.cron_id, dueAt);
        const fired = (await deps.runStatus(ids.runId)) !== null;
        if (!fired && previousBusy) {
          outcome.skipped! += 1;
          deps.log(
            `cron ${cron.cron_id}: skipped ${dueAt.toISOString()}, its previous run ${cron.last_run_id} is still ${previous}.`,
          );
          continue;
        }
        try {
          if (!fired) await deps.startRun(cron, ids, dueAt);
          outcome.last_run_id = ids.runId;
          outcome.last_run_at = dueAt.toISOString();
          outcome.last_error = null;
        } catch (error) {
          outcome.last_error = (error as Error).message;
          deps.log(
            `cron ${cron.cron_id}: the firing due ${dueAt.toISOString()} did not start a run: ${outcome.last_error}`,
          );
        }
      }
    } catch (error) {
      outcome.last_error = (error as Error).message;
      deps.log(`cron ${cron.cron_id}: ${outcome.last_error}`);
    }
    await deps.store.release(claim, outcome);
  }

  /** Handles every due cron, then returns how long to sleep. */
  async function tick(): Promise<number> {
    for (;;) {
      const claimed = await deps.store.claimDue(CLAIM_LEASE_MS, BATCH);
      for (const claim of claimed) await handle(claim);
      if (claimed.length < BATCH) break;
    }
    const next = await deps.store.nextDue();
    const wait = next === null ? deps.maxSleepMs : Date.parse(next) - clock().getTime();
    // A floor, so a due time the database's clock has not reached yet is not polled in a tight loop.
    return Math.min(deps.maxSleepMs, Math.max(MIN_SLEEP_MS, wait));
  }

  async function run(): Promise<void> {
    while (!stopped) {
      let sleep = deps.maxSleepMs;
      try {
        sleep = await tick();
      } catch (error) {
        deps.log(`crons: ${(error as Error).message}`);
        sleep = Math.min(deps.maxSleepMs, 1000);
      }
      if (!stopped) await wakeups.wait(sleep);
    }
  }

  return {
    start() {
      loop ??= run();
    },
    /** Looks at the store now (a cron was created, changed or made due). */
    wake() {
      wakeups.wakeAll();
    },
    async stop() {
      stopped = true;
      wakeups.wakeAll();
      await loop;
    },
  };
}

/** The scheduler `createCronScheduler` returns. */
export type CronScheduler = ReturnType<typeof createCronScheduler>;

/**
 * Per-user quotas (`auth.quotas`, with a user's own `quotas` over them; docs/auth.md): runs at once, and
 * runs, model tokens and upload bytes per UTC day. They hold across every process of a cluster because
 * the counts are rows in the shared database and each check-and-count is one transaction: a run's inside
 * its own insert, under the user's lock (`RunStore.insert` with a `RunQuota`), an upload's as one
 * conditional update. Tokens are counted as runs spend them, so only the next run is refused, never a
 * run in progress. The home's local user (no accounts) has no quotas.
 *
 * Over a limit is a 429 whose `Retry-After` says when trying again can work (the end of the UTC day for a
 * daily limit, a few seconds for runs at once) and whose detail names the limit, its value and what to do.
 */
import type { QuotasConfig } from "@deerflow/harness";
import type { ServerContext } from "../context.js";
import { HttpError } from "../http/errors.js";
import type { RunQuota, RunQuotaCounts } from "../runs/types.js";
import type { Caller } from "./caller.js";
import { type UserRecord, usageDay } from "./types.js";

/** Seconds a client is told to wait when all its runs at once are taken: runs finish in seconds or minutes. */
export const CONCURRENCY_RETRY_SECONDS = 5;

/** What the quota functions need of the server context. */
type QuotaContext = Pick<ServerContext, "users" | "config">;

/** A user's limits: the config's defaults with their own overrides on top (null = unlimited). */
export function effectiveQuotas(defaults: QuotasConfig, user: Pick<UserRecord, "quotas"> | null): QuotasConfig {
  return { ...defaults, ...(user?.quotas ?? {}) };
}

/** Seconds until the UTC day of `now` ends (at least 1): when the daily counters start again. */
export function secondsToUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

const count = (n: number) => n.toLocaleString("en-US");

/** "3 h 12 min", "45 min", "under a minute". */
function duration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  if (minutes === 0) return "under a minute";
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}

/** A user's limits with what the messages say about each one's source. */
interface Limits {
  values: QuotasConfig;
  /** Config key of a limit, and whether an admin set it for this user. */
  source(name: keyof QuotasConfig): string;
}

async function limitsOf(context: QuotaContext, userId: string): Promise<Limits> {
  const user = await context.users.get(userId);
  const own = user?.quotas ?? {};
  return {
    values: effectiveQuotas(context.config.auth.quotas, user),
    source: (name) => `auth.quotas.${name}${own[name] !== undefined ? ", set for you by an admin" : ""}`,
  };
}

/** The 429 of a daily limit: retry when the UTC day ends. */
function dailyRefusal(sentence: string, remedy: string): HttpError {
  const seconds = secondsToUtcMidnight();
  return new HttpError(
    429,
    `${sentence} It resets at 00:00 UTC, in ${duration(seconds)}; ${remedy}, or ask an admin to raise your limit.`,
    { "Retry-After": String(seconds) },
  );
}

/** The refusal of one more run for `counts` under `limits`, or null. Daily limits first: they wait longest. */
function runRefusal(limits: Limits, counts: RunQuotaCounts): HttpError | null {
  const { tokens_per_day, runs_per_day, concurrent_runs } = limits.values;
  if (tokens_per_day !== null && counts.tokensToday >= tokens_per_day)
    return dailyRefusal(
      `Quota reached: ${count(tokens_per_day)} model tokens per day (${limits.source("tokens_per_day")}); your runs have used ${count(counts.tokensToday)} today.`,
      "start new runs then",
    );
  if (runs_per_day !== null && counts.runsToday >= runs_per_day)
    return dailyRefusal(
      `Quota reached: ${count(runs_per_day)} run${runs_per_day === 1 ? "" : "s"} per day (${limits.source("runs_per_day")}); you have started ${count(counts.runsToday)} today.`,
      "start new runs then",
    );
  if (concurrent_runs !== null && counts.activeRuns >= concurrent_runs)
    return new HttpError(
      429,
      `Quota reached: ${count(concurrent_runs)} concurrent run${concurrent_runs === 1 ? "" : "s"} (${limits.source("concurrent_runs")}). Wait for a run to finish, or ask an admin to raise your limit.`,
      { "Retry-After": String(CONCURRENCY_RETRY_SECONDS) },
    );
  return null;
}

/**
 * Admits a run for `caller`: fails at once when a daily limit is already spent (before a thread is made),
 * and returns the quota `createRun` hands to `RunStore.insert`, which decides for good with the run's
 * insert and counts it. Undefined for the local user.
 */
export async function admitRun(context: QuotaContext, caller: Caller): Promise<RunQuota | undefined> {
  const owner = caller.userId;
  if (owner === null) return undefined;
  const limits = await limitsOf(context, owner);
  const day = usageDay();
  const check = (counts: RunQuotaCounts) => {
    const refusal = runRefusal(limits, counts);
    if (refusal) throw refusal;
  };
  const usage = await context.users.usage(owner, day);
  check({ activeRuns: 0, runsToday: usage.runs, tokensToday: usage.tokens });
  return { owner, day, check };
}

/**
 * Counts `bytes` of an upload against the caller's daily upload quota before they are stored, or throws
 * the 429 (nothing counted). An upload that is then not stored gives them back with `refundUpload`.
 */
export async function admitUpload(context: QuotaContext, caller: Caller, bytes: number): Promise<void> {
  const owner = caller.userId;
  if (owner === null || bytes <= 0) return;
  const limits = await limitsOf(context, owner);
  const limit = limits.values.upload_bytes_per_day;
  const day = usageDay();
  if (limit === null) return context.users.addUsage(owner, day, { upload_bytes: bytes });
  if (await context.users.addUsageWithin(owner, day, "upload_bytes", bytes, limit)) return;
  const used = (await context.users.usage(owner, day)).upload_bytes;
  throw dailyRefusal(
    `Quota reached: ${count(limit)} upload bytes per day (${limits.source("upload_bytes_per_day")}); ${count(used)} used today, and this upload is ${count(bytes)} bytes.`,
    "upload then, upload less now",
  );
}

/** Gives back bytes `admitUpload` counted for files that were not stored. */
export async function refundUpload(context: QuotaContext, caller: Caller, bytes: number): Promise<void> {
  if (caller.userId === null || bytes <= 0) return;
  await context.users.addUsage(caller.userId, usageDay(), { upload_bytes: -bytes });
}

/** Adds model tokens a run of `owner` spent to their day (nothing for the local user). */
export async function recordTokens(
  context: Pick<ServerContext, "users">,
  owner: string | null | undefined,
  tokens: number,
): Promise<void> {
  if (!owner || tokens <= 0) return;
  await context.users.addUsage(owner, usageDay(), { tokens });
}

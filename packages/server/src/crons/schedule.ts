/**
 * Cron expressions and time zones, read by croner (a maintained parser with IANA time zones through
 * Intl, so daylight-saving days fire once, at the right local time). Only the classic five fields are
 * accepted, as LangGraph's crons and crontab take them (day-of-month and day-of-week OR-ed, as crontab
 * does): a six-field expression, read with a seconds field, would fire sixty times a minute.
 */
import { Cron } from "croner";
import { HttpError } from "../http/errors.js";

/** Shown with every schedule error. */
const SCHEDULE_EXAMPLE =
  'Use five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *" (every 15 minutes).';

/** Most due times listed at once (catch_up: all after a long outage). */
const MAX_DUE_TIMES = 1000;

/** The parsed schedule; throws an HttpError 422 saying what is wrong and giving an example. */
export function parseSchedule(schedule: string, timezone: string): Cron {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5)
    throw new HttpError(
      422,
      `Invalid schedule "${schedule}": it has ${fields.length} field${fields.length === 1 ? "" : "s"}. ${SCHEDULE_EXAMPLE}`,
    );
  checkTimezone(timezone);
  try {
    return new Cron(fields.join(" "), { timezone, paused: true, mode: "5-part" });
  } catch (error) {
    throw new HttpError(422, `Invalid schedule "${schedule}": ${(error as Error).message}. ${SCHEDULE_EXAMPLE}`);
  }
}

/** Throws an HttpError 422 unless `timezone` is an IANA time zone this runtime knows. */
export function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw new HttpError(
      422,
      `Invalid timezone "${timezone}": not an IANA time zone. Use a name such as "UTC", "Asia/Shanghai" or "America/New_York".`,
    );
  }
}

/** The first due time strictly after `after`, or null when there is none before `endTime`. */
export function nextDueAfter(cron: Cron, after: Date, endTime: string | null): Date | null {
  const next = cron.nextRun(after);
  if (!next) return null;
  if (endTime && next.getTime() > Date.parse(endTime)) return null;
  return next;
}

/** The due times from `first` (included) up to `now` (included), oldest first, at most MAX_DUE_TIMES. */
export function dueTimesUntil(cron: Cron, first: Date, now: Date): Date[] {
  const times: Date[] = [];
  for (let at: Date | null = first; at && at <= now && times.length < MAX_DUE_TIMES; at = cron.nextRun(at))
    times.push(at);
  return times;
}

/**
 * Schedules as the scheduled-tasks page shows them: the presets a person picks from, the next due times
 * of a five-field cron expression in a time zone (read by croner, as the server reads it), and due times
 * written in that zone. The server is the judge of a schedule; the preview only shows what it will do.
 */
import { Cron } from "croner";
import { intlLocale, type MessageKey, t } from "../i18n";

/** A schedule a person can pick by name instead of writing cron. */
export interface Preset {
  id: string;
  /** The i18n key of its name; `t(preset.label)` shows it. */
  label: MessageKey;
  cron: string;
}

/** The presets, in the order the picker offers them. */
export const PRESETS: readonly Preset[] = [
  { id: "weekdays-9", label: "schedules.preset.weekdays9", cron: "0 9 * * 1-5" },
  { id: "daily-8", label: "schedules.preset.daily8", cron: "0 8 * * *" },
  { id: "monday-9", label: "schedules.preset.monday9", cron: "0 9 * * 1" },
  { id: "hourly", label: "schedules.preset.hourly", cron: "0 * * * *" },
];

/** The picker's value for a schedule no preset names. */
export const CUSTOM = "custom";

/** The preset whose expression is `schedule` (spacing ignored), or undefined. */
export function presetOf(schedule: string): Preset | undefined {
  const normalized = schedule.trim().split(/\s+/).join(" ");
  return PRESETS.find((preset) => preset.cron === normalized);
}

/** The browser's IANA time zone, the default for a new task. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Every IANA time zone this browser knows (for the zone field's suggestions). */
export function knownTimeZones(): string[] {
  return typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
}

/** The next `count` due times after `after`, or why there are none (a bad expression or zone). */
export function nextTimes(
  schedule: string,
  timezone: string,
  count: number,
  after: Date,
): { times: Date[] } | { problem: string } {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    return {
      problem: t("schedules.fiveFields", { count: fields.length }),
    };
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    return { problem: t("schedules.unknownZone", { zone: timezone }) };
  }
  try {
    const cron = new Cron(fields.join(" "), { timezone, paused: true, mode: "5-part" });
    return { times: cron.nextRuns(count, after) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/**
 * A due time as a person in `timezone` reads it: weekday, date and 24-hour time there.
 *
 * @example
 * formatIn(new Date("2026-12-01T01:00:00Z"), "Asia/Shanghai") // "Tue, Dec 1, 2026, 09:00" (in English)
 */
export function formatIn(date: Date, timezone: string): string {
  return date.toLocaleString(intlLocale(), {
    timeZone: timezone,
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
}

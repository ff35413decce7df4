/**
 * Reading and editing quotas: how usage and limits read on the users page, and which fields an edit
 * sends. Only changed fields are sent, so a limit that follows the server's default (`auth.quotas`)
 * keeps following it until someone sets it.
 */
import { type MessageKey, t } from "../i18n";
import type { Quotas } from "./account-api";

/** The quotas in the order the page shows them, with their label keys and units. */
export const QUOTA_FIELDS: { key: keyof Quotas; label: MessageKey; bytes?: boolean }[] = [
  { key: "concurrent_runs", label: "quota.concurrentRuns" },
  { key: "runs_per_day", label: "quota.runsPerDay" },
  { key: "tokens_per_day", label: "quota.tokensPerDay" },
  { key: "upload_bytes_per_day", label: "quota.uploadBytesPerDay", bytes: true },
];

/**
 * A byte count for people.
 *
 * @example
 * formatBytes(1536) // "1.5 KB"
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** "used / limit", with "no limit" for null. */
export function usageOf(used: number, limit: number | null, bytes = false): string {
  const show = (n: number) => (bytes ? formatBytes(n) : n.toLocaleString());
  return `${show(used)} / ${limit === null ? t("quota.noLimit") : show(limit)}`;
}

/** The form's text for a limit: blank for unlimited. */
export function limitText(limit: number | null): string {
  return limit === null ? "" : String(limit);
}

/**
 * The PATCH body for an edit: each field whose text differs from the effective limit, blank meaning
 * unlimited (null). Returns an error message for text that is not a whole number ≥ 0.
 *
 * @example
 * quotaPatch({ concurrent_runs: 4, runs_per_day: null, tokens_per_day: null, upload_bytes_per_day: null },
 *   { concurrent_runs: "2", runs_per_day: "", tokens_per_day: "", upload_bytes_per_day: "" })
 * // { patch: { concurrent_runs: 2 } }
 */
export function quotaPatch(
  effective: Quotas,
  form: Record<keyof Quotas, string>,
): { patch: Partial<Quotas> } | { error: string } {
  const patch: Partial<Quotas> = {};
  for (const { key, label } of QUOTA_FIELDS) {
    const text = form[key].trim();
    const value = text === "" ? null : Number(text);
    if (value !== null && !(Number.isInteger(value) && value >= 0))
      return { error: t("quota.notWhole", { label: t(label), text }) };

    if (value !== effective[key]) patch[key] = value;
  }
  return { patch };
}

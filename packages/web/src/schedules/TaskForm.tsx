/**
 * The new scheduled task form: the prompt, a preset or a five-field cron expression, the time zone (the
 * browser's by default) and a live preview of the next five due times in that zone. The server decides
 * whether a schedule is valid: its 422 message shows under the field it is about.
 */
import { CalendarPlus } from "lucide-react";
import { type FormEvent, useId, useMemo, useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { browserTimeZone, CUSTOM, formatIn, knownTimeZones, nextTimes, PRESETS, presetOf } from "./schedule";
import type { NewTask } from "./tasks";

/** How many due times the preview lists. */
const PREVIEW_COUNT = 5;

/** Props of {@link TaskForm}. */
export interface TaskFormProps {
  /** Creates the task; a rejection's detail is shown (under the schedule or zone field for a 422). */
  onCreate(task: NewTask): Promise<void>;
  /** The zone a new task starts with; the browser's by default. */
  defaultTimezone?: string;
  /** The time the preview counts from; now by default. */
  now?: Date;
}

/** Where a refusal is shown: under the schedule field, the zone field, or the form. */
type Refusal = { field: "schedule" | "timezone" | "form"; message: string };

/** Places the server's refusal: a 422 about the zone under the zone, any other 422 under the schedule. */
function refusalOf(error: unknown): Refusal {
  const message = errorDetail(error);
  const status = (error as { status?: unknown } | null)?.status;
  const invalid = status === 422 || /HTTP 422\b/.test(String((error as Error | null)?.message ?? ""));
  if (!invalid) return { field: "form", message };
  return { field: /^Invalid timezone/i.test(message) ? "timezone" : "schedule", message };
}

/** Renders the form. */
export function TaskForm({ onCreate, defaultTimezone, now }: TaskFormProps) {
  useLocale();
  const [prompt, setPrompt] = useState("");
  const [schedule, setSchedule] = useState(PRESETS[0]!.cron);
  const [timezone, setTimezone] = useState(() => defaultTimezone ?? browserTimeZone());
  const [refusal, setRefusal] = useState<Refusal>();
  const [busy, setBusy] = useState(false);
  const zones = useMemo(knownTimeZones, []);
  const ids = useId();
  const preview = useMemo(
    () => nextTimes(schedule, timezone.trim(), PREVIEW_COUNT, now ?? new Date()),
    [schedule, timezone, now],
  );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setRefusal(undefined);
    try {
      await onCreate({ prompt: prompt.trim(), schedule: schedule.trim(), timezone: timezone.trim() });
      setPrompt("");
    } catch (error) {
      setRefusal(refusalOf(error));
    } finally {
      setBusy(false);
    }
  };
  const refusalFor = (field: Refusal["field"]) =>
    refusal?.field === field ? (
      <span className="error-text small" id={`${ids}-${field}-error`} role="alert">
        {refusal.message}
      </span>
    ) : null;
  const describedBy = (field: Refusal["field"]) => (refusal?.field === field ? `${ids}-${field}-error` : undefined);

  return (
    <form className="task-form" aria-label={t("schedules.newTask")} onSubmit={(event) => void submit(event)}>
      <label className="field">
        {t("schedules.prompt")}
        <textarea
          required
          rows={3}
          placeholder={t("schedules.promptPlaceholder")}
          value={prompt}
          onChange={(event) => setPrompt(event.target.value)}
        />
      </label>
      <div className="task-form-row">
        <div className="field">
          <label htmlFor={`${ids}-repeat`}>{t("schedules.repeat")}</label>
          <select
            id={`${ids}-repeat`}
            value={presetOf(schedule)?.id ?? CUSTOM}
            onChange={(event) => {
              const preset = PRESETS.find((one) => one.id === event.target.value);
              if (preset) setSchedule(preset.cron);
            }}
          >
            {PRESETS.map((preset) => (
              <option key={preset.id} value={preset.id}>
                {t(preset.label)}
              </option>
            ))}
            <option value={CUSTOM}>{t("schedules.custom")}</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${ids}-schedule`}>{t("schedules.cron")}</label>
          <input
            id={`${ids}-schedule`}
            className="mono"
            value={schedule}
            aria-invalid={refusal?.field === "schedule" || undefined}
            aria-describedby={[`${ids}-schedule-hint`, describedBy("schedule")].filter(Boolean).join(" ")}
            onChange={(event) => setSchedule(event.target.value)}
            spellCheck={false}
          />
          <span className="muted small" id={`${ids}-schedule-hint`}>
            {t("schedules.cronHint")}
          </span>
          {refusalFor("schedule")}
        </div>
        <div className="field">
          <label htmlFor={`${ids}-timezone`}>{t("schedules.timezone")}</label>
          <input
            id={`${ids}-timezone`}
            list={`${ids}-zones`}
            value={timezone}
            aria-invalid={refusal?.field === "timezone" || undefined}
            aria-describedby={describedBy("timezone")}
            onChange={(event) => setTimezone(event.target.value)}
            spellCheck={false}
          />
          <datalist id={`${ids}-zones`}>
            {zones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
          {refusalFor("timezone")}
        </div>
      </div>
      <div className="task-preview" aria-live="polite">
        {"times" in preview ? (
          <>
            <span className="muted small">
              {t("schedules.nextRuns", { count: PREVIEW_COUNT, zone: timezone.trim() })}
            </span>
            <ol aria-label={t("schedules.nextRunsLabel")}>
              {preview.times.map((time) => (
                <li key={time.toISOString()}>
                  <time dateTime={time.toISOString()}>{formatIn(time, timezone.trim())}</time>
                </li>
              ))}
            </ol>
          </>
        ) : (
          <span className="muted small" data-testid="preview-problem">
            {t("schedules.noPreview", { problem: preview.problem })}
          </span>
        )}
      </div>
      {refusalFor("form")}
      <div>
        <button type="submit" className="primary" disabled={busy || !prompt.trim()}>
          <CalendarPlus size={14} aria-hidden /> {t("schedules.create")}
        </button>
      </div>
    </form>
  );
}

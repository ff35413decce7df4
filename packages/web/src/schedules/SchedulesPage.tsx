/**
 * The scheduled tasks page (loaded on first visit): the new task form, and the person's tasks with
 * their schedule, next run and last run (its status, and a link to the thread it ran on), each paused,
 * resumed or deleted in place. The list is reloaded every 10 seconds, so a firing shows up on its own.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { Pause, Play, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { useServerList } from "../server-list";
import { navigate } from "../router";
import { formatIn, presetOf } from "./schedule";
import { TaskForm } from "./TaskForm";
import { createTask, deleteTask, lastFiringThread, listTasks, promptOf, type ScheduledTask, setEnabled } from "./tasks";

/** How often the list is reloaded while the page is open. */
const REFRESH_MS = 10_000;

/** Props of {@link SchedulesPage}. */
export interface SchedulesPageProps {
  client: Client;
}

/** Renders the page. */
export function SchedulesPage({ client }: SchedulesPageProps) {
  useLocale();
  const {
    items: tasks,
    error,
    setError,
    reload: load,
  } = useServerList(
    useCallback(() => listTasks(client), [client]),
    REFRESH_MS,
  );
  const [confirming, setConfirming] = useState<string>();

  /** Runs a change, then shows the list as the server has it (or why the change was refused). */
  const change = async (action: () => Promise<unknown>) => {
    try {
      await action();
      await load();
    } catch (failure) {
      setError(errorDetail(failure));
    }
  };

  return (
    <div className="account-page">
      <section className="account-section" aria-label={t("schedules.newTask")}>
        <h2>{t("schedules.newTask")}</h2>
        <p className="muted">{t("schedules.intro")}</p>
        <TaskForm
          onCreate={async (task) => {
            await createTask(client, task);
            await load();
          }}
        />
      </section>
      <section className="account-section" aria-label={t("threads.schedules")}>
        <h2>{t("threads.schedules")}</h2>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        {tasks === undefined && !error && <p className="muted">{t("common.loading")}</p>}
        {tasks?.length === 0 && <p className="muted">{t("schedules.empty")}</p>}
        {tasks && tasks.length > 0 && (
          <div className="table-wrap">
            <table className="data-table">
              <thead>
                <tr>
                  <th>{t("schedules.colTask")}</th>
                  <th>{t("schedules.colSchedule")}</th>
                  <th>{t("schedules.colNext")}</th>
                  <th>{t("schedules.colLast")}</th>
                  <th>
                    <span className="visually-hidden">{t("common.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tasks.map((task) => (
                  <tr key={task.cron_id} data-testid="task-row" data-cron-id={task.cron_id}>
                    <td className="task-prompt">
                      {promptOf(task) || <span className="muted">{t("schedules.noPrompt")}</span>}
                    </td>
                    <td>
                      {presetLabel(task.schedule) ?? <code>{task.schedule}</code>}
                      <div className="muted small">{task.timezone ?? "UTC"}</div>
                    </td>
                    <td data-testid="next-run">
                      <NextRun task={task} />
                    </td>
                    <td data-testid="last-run">
                      <LastRun client={client} task={task} />
                    </td>
                    <td className="actions">
                      {confirming === task.cron_id ? (
                        <span className="confirm">
                          {t("schedules.deleteConfirm")}
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              setConfirming(undefined);
                              void change(() => deleteTask(client, task.cron_id));
                            }}
                          >
                            {t("common.delete")}
                          </button>
                          <button type="button" onClick={() => setConfirming(undefined)}>
                            {t("common.keep")}
                          </button>
                        </span>
                      ) : (
                        <>
                          <button
                            type="button"
                            className="icon-btn"
                            aria-label={t(task.enabled ? "schedules.pause" : "schedules.resume", {
                              task: promptOf(task),
                            })}
                            onClick={() => void change(() => setEnabled(client, task.cron_id, !task.enabled))}
                          >
                            {task.enabled ? <Pause size={14} /> : <Play size={14} />}
                          </button>
                          <button
                            type="button"
                            className="icon-btn"
                            aria-label={t("schedules.delete", { task: promptOf(task) })}
                            onClick={() => setConfirming(task.cron_id)}
                          >
                            <Trash2 size={14} />
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

/** The next due time in the task's zone; "Paused" while paused, "No more runs" past its end. */
function NextRun({ task }: { task: ScheduledTask }) {
  if (!task.enabled) return <span className="muted">{t("schedules.paused")}</span>;
  if (!task.next_run_date) return <span className="muted">{t("schedules.noMoreRuns")}</span>;
  return <time dateTime={task.next_run_date}>{formatIn(new Date(task.next_run_date), task.timezone ?? "UTC")}</time>;
}

/** When it last fired, the run's status, skips and errors, and a link to the thread it ran on. */
function LastRun({ client, task }: { client: Client; task: ScheduledTask }) {
  const [threadId, setThreadId] = useState<string>();
  const { last_run_id: runId } = task;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the thread changes only with the last run
  useEffect(() => {
    setThreadId(undefined);
    if (!runId) return;
    lastFiringThread(client, task).then(setThreadId, () => undefined);
  }, [client, runId]);
  return (
    <div className="last-run">
      {task.last_run_at ? (
        <span>
          <time dateTime={task.last_run_at}>{formatIn(new Date(task.last_run_at), task.timezone ?? "UTC")}</time>
          {task.last_run_status && (
            <span className={`run-status status-${task.last_run_status}`}> {task.last_run_status}</span>
          )}
        </span>
      ) : (
        <span className="muted">{t("schedules.never")}</span>
      )}
      {threadId && (
        <a
          href={`/threads/${encodeURIComponent(threadId)}`}
          onClick={(event) => {
            event.preventDefault();
            navigate(`/threads/${encodeURIComponent(threadId)}`);
          }}
        >
          {t("schedules.openThread")}
        </a>
      )}
      {Boolean(task.skipped) && (
        <span className="muted small">{t("schedules.skipped", { count: task.skipped ?? 0 })}</span>
      )}
      {task.last_error && <span className="error-text small">{task.last_error}</span>}
    </div>
  );
}

/** The preset's name for a schedule, in the current language, or undefined for a custom one. */
function presetLabel(schedule: string): string | undefined {
  const preset = presetOf(schedule);
  return preset && t(preset.label);
}

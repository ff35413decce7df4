/**
 * One tool call as a compact card: the tool's name and a one-line view of its arguments, a spinner
 * while it runs, a check or an error mark when its result arrives, and the full arguments and result
 * when expanded.
 */
import { AlertTriangle, Check, ChevronRight, Loader2, Wrench } from "lucide-react";
import { useState } from "react";
import { type BatchProgress, settledPercent } from "../harness/batches";
import { t, useLocale } from "../i18n";
import { shortArgs, type ToolCallView } from "./messages";

/** Renders a tool call and its result; `progress` adds a `batch_task` call's progress bar. */
export function ToolCard({
  view,
  running,
  progress,
}: {
  view: ToolCallView;
  running: boolean;
  progress?: BatchProgress;
}) {
  useLocale();
  const [open, setOpen] = useState(false);
  const { call, result } = view;
  const state = result ? (result.error ? "error" : "done") : running ? "running" : "stopped";
  return (
    <div className={`tool-card tool-${state}`} data-testid="tool-card" data-tool={call.name} data-state={state}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <ChevronRight size={14} className={open ? "rot90" : ""} aria-hidden />
        <Wrench size={14} aria-hidden />
        <span className="tool-name">{call.name}</span>
        <span className="tool-args">{shortArgs(call.args ?? {})}</span>
        {state === "running" && <Loader2 size={14} className="spin" aria-label={t("chat.toolRunning")} />}
        {state === "done" && <Check size={14} aria-label={t("chat.toolDone")} />}
        {state === "error" && <AlertTriangle size={14} aria-label={t("chat.toolFailed")} />}
      </button>
      {progress && <BatchBar progress={progress} />}
      {!open && result && <div className="tool-preview">{result.text.slice(0, 160)}</div>}
      {open && (
        <div className="tool-body">
          <div className="label">{t("chat.arguments")}</div>
          <pre>{JSON.stringify(call.args ?? {}, null, 2)}</pre>
          {result && (
            <>
              <div className="label">{result.error ? t("chat.error") : t("chat.result")}</div>

              <pre>{result.text}</pre>
            </>
          )}
        </div>
      )}
    </div>
  );
}

/** A batch's progress: a bar of the settled share and the counts. */
function BatchBar({ progress }: { progress: BatchProgress }) {
  const percent = settledPercent(progress);
  const vars = { done: progress.done, total: progress.total, failed: progress.failed };
  return (
    <div className="batch-progress" data-testid="batch-progress">
      <div
        className="batch-bar"
        role="progressbar"
        aria-label={t("batch.progressLabel")}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="batch-bar-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="batch-counts">
        {progress.failed > 0 ? t("batch.progressFailed", vars) : t("batch.progress", vars)}
      </span>
    </div>
  );
}

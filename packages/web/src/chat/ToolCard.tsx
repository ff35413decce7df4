/**
 * One tool call as a compact card: the tool's name and a one-line view of its arguments, a spinner
 * while it runs, a check or an error mark when its result arrives, and the full arguments and result
 * when expanded.
 */
import { AlertTriangle, Check, ChevronRight, Loader2, Wrench } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";
import { shortArgs, type ToolCallView } from "./messages";

/** Renders a tool call and its result. */
export function ToolCard({ view, running }: { view: ToolCallView; running: boolean }) {
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

/**
 * The files the thread's latest run created or changed in its workspace and outputs, under the chat
 * once the run ended: `GET /api/threads/{id}/runs/{run_id}/changes` (computed by the server from the
 * files' modification times, so shell commands' writes count too). Each file opens in the artifacts
 * panel. Nothing shows for a run that wrote nothing, or on a server without the route.
 */
import { FilePen, FilePlus } from "lucide-react";
import { useEffect, useState } from "react";
import type { Client } from "@langchain/langgraph-sdk";
import { apiFetch } from "../api";
import { formatDateTime, t, useLocale } from "../i18n";

/** One changed file as the route lists it. */
export interface ChangedFile {
  path: string;
  kind: "created" | "modified";
  size: number;
  modified_at: string;
}

/** Props of {@link RunChanges}. */
export interface RunChangesProps {
  client: Client;
  apiKey: string | undefined;
  threadId: string | null | undefined;
  /** While a run is going the list waits; it loads when the run ends. */
  running: boolean;
  onOpen: (path: string) => void;
}

/** Lists the latest run's changed files. */
export function RunChanges({ client, apiKey, threadId, running, onOpen }: RunChangesProps) {
  useLocale();
  const [changes, setChanges] = useState<{ files: ChangedFile[]; truncated: boolean }>();
  useEffect(() => {
    setChanges(undefined);
    if (!threadId || running) return;
    let alive = true;
    void (async () => {
      const [run] = await client.runs.list(threadId, { limit: 1 });
      if (!run) return;
      const response = await apiFetch(
        `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(run.run_id)}/changes`,
        apiKey,
      );
      const body = (await response.json()) as { files: ChangedFile[]; truncated: boolean };
      if (alive) setChanges(body);
    })().catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [client, apiKey, threadId, running]);
  if (!changes || changes.files.length === 0) return null;
  return (
    <details className="run-changes" data-testid="run-changes">
      <summary>{t("changes.title", { count: changes.files.length })}</summary>
      <ul>
        {changes.files.map((file) => (
          <li key={file.path} data-testid="changed-file" data-kind={file.kind}>
            <button
              type="button"
              className="link"
              aria-label={t("changes.open", { path: file.path })}
              title={formatDateTime(file.modified_at)}
              onClick={() => onOpen(file.path)}
            >
              {file.kind === "created" ? <FilePlus size={14} aria-hidden /> : <FilePen size={14} aria-hidden />}{" "}
              {file.path.replace(/^\/mnt\/user-data\//, "")}
            </button>{" "}
            <span className={`muted small change-${file.kind}`}>
              {file.kind === "created" ? t("changes.created") : t("changes.modified")}
            </span>
          </li>
        ))}
      </ul>
      {changes.truncated && <p className="muted small">{t("changes.truncated", { count: changes.files.length })}</p>}
    </details>
  );
}

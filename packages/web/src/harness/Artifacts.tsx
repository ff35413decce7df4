/**
 * The artifacts side panel: the files the agent presented (state.artifacts, virtual paths), each
 * previewed by kind (Markdown rendered, HTML in a sandboxed iframe without scripts, images, CSV as a
 * table, anything else as text) and downloadable. Files are fetched through the artifacts route with
 * the API key, so previews work with auth on.
 */
import { Download, FileText, X } from "lucide-react";
import { useEffect, useState } from "react";
import { apiFetch, artifactPath } from "../api";
import { CodeBlock, Markdown } from "../chat/Markdown";
import { t, useLocale } from "../i18n";
import { parseCsv } from "./csv";

type Kind = "markdown" | "html" | "image" | "csv" | "text";

/** How a file is previewed, by its extension. */
export function previewKind(name: string): Kind {
  const ext = name.toLowerCase().split(".").pop() ?? "";
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "html" || ext === "htm") return "html";
  if (["png", "jpg", "jpeg", "gif", "webp", "svg"].includes(ext)) return "image";
  if (ext === "csv" || ext === "tsv") return "csv";
  return "text";
}

function baseName(virtualPath: string): string {
  return virtualPath.split("/").pop() ?? virtualPath;
}

/** Downloads an artifact through the API (so the key is sent) as a file named like it. */
async function download(threadId: string, virtualPath: string, apiKey: string | undefined) {
  const response = await apiFetch(`${artifactPath(threadId, virtualPath)}?download=true`, apiKey);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = baseName(virtualPath);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function Preview({ threadId, path, apiKey }: { threadId: string; path: string; apiKey: string | undefined }) {
  const kind = previewKind(path);
  useLocale();
  const [content, setContent] = useState<{ text?: string; url?: string; error?: string }>({});
  useEffect(() => {
    let alive = true;
    let url: string | undefined;
    setContent({});
    apiFetch(artifactPath(threadId, path), apiKey)
      .then(async (response) => {
        if (kind === "image") {
          url = URL.createObjectURL(await response.blob());
          if (alive) setContent({ url });
        } else {
          const text = await response.text();
          if (alive) setContent({ text });
        }
      })
      .catch((error: Error) => alive && setContent({ error: error.message }));
    return () => {
      alive = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [threadId, path, apiKey, kind]);
  if (content.error)
    return (
      <div className="error-text">{t("artifacts.couldNotLoad", { name: baseName(path), error: content.error })}</div>
    );
  if (content.text === undefined && !content.url) return <div className="muted">{t("common.loading")}</div>;
  const text = content.text ?? "";
  switch (kind) {
    case "markdown":
      return <Markdown text={text} />;
    case "html":
      return <iframe className="html-preview" title={baseName(path)} sandbox="" srcDoc={text} />;
    case "image":
      return <img className="image-preview" src={content.url} alt={baseName(path)} />;
    case "csv": {
      const rows = parseCsv(text, 500, path.toLowerCase().endsWith(".tsv") ? "\t" : ",");
      return (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                {rows[0]?.map((cell, index) => (
                  <th key={index}>{cell}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.slice(1).map((row, r) => (
                <tr key={r}>
                  {row.map((cell, index) => (
                    <td key={index}>{cell}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    default:
      return <CodeBlock code={text} language={path.split(".").pop()} />;
  }
}

/** Props of {@link Artifacts}. */
export interface ArtifactsProps {
  threadId: string;
  paths: string[];
  apiKey: string | undefined;
  selected: string | undefined;
  onSelect: (path: string | undefined) => void;
  onClose: () => void;
}

/** Renders the panel. */
export function Artifacts({ threadId, paths, apiKey, selected, onSelect, onClose }: ArtifactsProps) {
  useLocale();
  const [error, setError] = useState<string>();
  return (
    <aside className="artifacts" aria-label={t("artifacts.title")} data-testid="artifacts">
      <div className="panel-head">
        <span>{t("artifacts.title")}</span>
        <button type="button" className="icon-btn" aria-label={t("artifacts.close")} onClick={onClose}>
          <X size={16} />
        </button>
      </div>
      <ul className="artifact-list">
        {paths.map((path) => (
          <li key={path} className={path === selected ? "active" : ""}>
            <button
              type="button"
              className="artifact-open"
              onClick={() => onSelect(path === selected ? undefined : path)}
              title={path}
            >
              <FileText size={14} aria-hidden /> {baseName(path)}
            </button>
            <button
              type="button"
              className="icon-btn"
              aria-label={t("artifacts.download", { name: baseName(path) })}
              onClick={() => download(threadId, path, apiKey).catch((e: Error) => setError(e.message))}
            >
              <Download size={14} />
            </button>
          </li>
        ))}
      </ul>
      {error && <div className="error-text">{error}</div>}
      {selected && (
        <div className="artifact-preview" data-testid="artifact-preview">
          <Preview threadId={threadId} path={selected} apiKey={apiKey} />
        </div>
      )}
    </aside>
  );
}

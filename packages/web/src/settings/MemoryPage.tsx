/**
 * The memory page: the facts the agent keeps about the user (content, category, confidence), each
 * editable and deletable, and a "clear all" that asks first. Everything goes through the gateway's
 * memory routes, and the page always shows the document the server answered with, so what you see is
 * what the next run will read.
 */
import { useCallback, useEffect, useState } from "react";
import { apiFetch } from "../api";
import { t, useLocale } from "../i18n";

/** One fact as the memory routes return it. */
export interface Fact {
  id: string;
  content: string;
  category: string;
  confidence: number;
}

interface MemoryDocument {
  facts: Fact[];
}

/** Props of {@link MemoryPage}. */
export interface MemoryPageProps {
  apiKey: string | undefined;
}

/** Lists, edits, deletes and clears memory facts. */
export function MemoryPage({ apiKey }: MemoryPageProps) {
  useLocale();
  const [facts, setFacts] = useState<Fact[]>();
  const [error, setError] = useState<string>();
  const [editing, setEditing] = useState<{ id: string; content: string }>();
  const [confirmClear, setConfirmClear] = useState(false);

  const call = useCallback(
    async (pathname: string, init?: RequestInit) => {
      try {
        const response = await apiFetch(pathname, apiKey, init);
        setFacts(((await response.json()) as MemoryDocument).facts ?? []);
        setError(undefined);
        return true;
      } catch (failure) {
        setError((failure as Error).message);
        return false;
      }
    },
    [apiKey],
  );

  useEffect(() => {
    void call("/memory");
  }, [call]);

  const save = async () => {
    if (!editing) return;
    const ok = await call(`/memory/facts/${encodeURIComponent(editing.id)}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: editing.content }),
    });
    if (ok) setEditing(undefined);
  };

  return (
    <section className="settings-page" aria-label={t("settings.tab.memory")}>
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {facts === undefined ? (
        <p className="muted small">{t("memory.loading")}</p>
      ) : facts.length === 0 ? (
        <p className="muted small" data-testid="memory-empty">
          {t("memory.empty")}
        </p>
      ) : (
        <ul className="facts">
          {facts.map((fact) => (
            <li key={fact.id} className="fact" data-testid="memory-fact">
              {editing?.id === fact.id ? (
                <>
                  <textarea
                    aria-label={t("memory.factContent")}
                    value={editing.content}
                    onChange={(event) => setEditing({ id: fact.id, content: event.target.value })}
                  />
                  <div className="row">
                    <button type="button" onClick={() => void save()}>
                      {t("common.save")}
                    </button>
                    <button type="button" onClick={() => setEditing(undefined)}>
                      {t("common.cancel")}
                    </button>
                  </div>
                </>
              ) : (
                <>
                  <p className="fact-content">{fact.content}</p>
                  <p className="muted small">
                    {t("memory.confidence", { category: fact.category, percent: Math.round(fact.confidence * 100) })}
                  </p>
                  <div className="row">
                    <button
                      type="button"
                      aria-label={t("memory.editFact", { content: fact.content })}
                      onClick={() => setEditing({ id: fact.id, content: fact.content })}
                    >
                      {t("common.edit")}
                    </button>
                    <button
                      type="button"
                      aria-label={t("memory.deleteFact", { content: fact.content })}
                      onClick={() => void call(`/memory/facts/${encodeURIComponent(fact.id)}`, { method: "DELETE" })}
                    >
                      {t("common.delete")}
                    </button>
                  </div>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {facts &&
        facts.length > 0 &&
        (confirmClear ? (
          <div className="row" role="alertdialog" aria-label={t("memory.clearConfirmLabel")}>
            <span className="small">{t("memory.clearConfirm")}</span>
            <button
              type="button"
              className="danger"
              onClick={() => void call("/memory", { method: "DELETE" }).then(() => setConfirmClear(false))}
            >
              {t("memory.clearAll")}
            </button>
            <button type="button" onClick={() => setConfirmClear(false)}>
              {t("common.keep")}
            </button>
          </div>
        ) : (
          <button type="button" onClick={() => setConfirmClear(true)}>
            {t("memory.clear")}
          </button>
        ))}
    </section>
  );
}

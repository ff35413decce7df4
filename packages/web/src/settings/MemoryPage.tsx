/**
 * The memory page: the facts the agent keeps about the user (content, category, confidence), each
 * editable and deletable, and a "clear all" that asks first. Everything goes through the gateway's
 * memory routes, and the page always shows the document the server answered with, so what you see is
 * what the next run will read.
 */
import { useCallback, useEffect, useState } from "react";
import { apiFetch } from "../api";

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
    <section className="settings-page" aria-label="Memory">
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {facts === undefined ? (
        <p className="muted small">Loading memory…</p>
      ) : facts.length === 0 ? (
        <p className="muted small" data-testid="memory-empty">
          The agent remembers no facts yet.
        </p>
      ) : (
        <ul className="facts">
          {facts.map((fact) => (
            <li key={fact.id} className="fact" data-testid="memory-fact">
              {editing?.id === fact.id ? (
                <>
                  <textarea
                    aria-label="Fact content"
                    value={editing.content}
                    onChange={(event) => setEditing({ id: fact.id, content: event.target.value })}
                  />
                  <div className="row">
                    <button type="button" onClick={() => void save()}>
                      Save
                    </button>
                    <button type="button" onClick={() => setEditing(undefined)}>
                      Cancel
                    </button>
                  </div>
                </>
              ) : (
                <>
                  <p className="fact-content">{fact.content}</p>
                  <p className="muted small">
                    {fact.category} · confidence {Math.round(fact.confidence * 100)}%
                  </p>
                  <div className="row">
                    <button
                      type="button"
                      aria-label={`Edit fact: ${fact.content}`}
                      onClick={() => setEditing({ id: fact.id, content: fact.content })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      aria-label={`Delete fact: ${fact.content}`}
                      onClick={() => void call(`/memory/facts/${encodeURIComponent(fact.id)}`, { method: "DELETE" })}
                    >
                      Delete
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
          <div className="row" role="alertdialog" aria-label="Clear all memory?">
            <span className="small">Forget every fact?</span>
            <button
              type="button"
              className="danger"
              onClick={() => void call("/memory", { method: "DELETE" }).then(() => setConfirmClear(false))}
            >
              Clear all
            </button>
            <button type="button" onClick={() => setConfirmClear(false)}>
              Keep
            </button>
          </div>
        ) : (
          <button type="button" onClick={() => setConfirmClear(true)}>
            Clear memory…
          </button>
        ))}
    </section>
  );
}

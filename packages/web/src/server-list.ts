/**
 * A list a settings page shows from the server (agents, API tokens, scheduled tasks): read when the page
 * opens, again on `reload` after a change (and every `refreshMs`, when given), with the last failure's
 * text to show instead. A successful read clears the error; a change that fails sets it with `setError`.
 */
import { useCallback, useEffect, useState } from "react";
import { errorDetail } from "./api";

/** What {@link useServerList} gives the page. */
export interface ServerList<T> {
  /** The list as last read; undefined until the first read succeeds. */
  items: T[] | undefined;
  error: string | undefined;
  setError: (error: string | undefined) => void;
  /** Reads the list again. */
  reload: () => Promise<void>;
}

/** Reads `read()` (keep it stable with `useCallback`) on mount, on `reload`, and every `refreshMs`. */
export function useServerList<T>(read: () => Promise<T[]>, refreshMs?: number): ServerList<T> {
  const [items, setItems] = useState<T[]>();
  const [error, setError] = useState<string>();
  const reload = useCallback(async () => {
    try {
      setItems(await read());
      setError(undefined);
    } catch (failure) {
      setError(errorDetail(failure));
    }
  }, [read]);
  useEffect(() => {
    void reload();
    if (!refreshMs) return;
    const timer = setInterval(() => void reload(), refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);
  return { items, error, setError, reload };
}

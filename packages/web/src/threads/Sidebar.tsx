/**
 * The thread list: most recently updated first, filtered by a search box, with rename and delete
 * (after a confirmation) on each entry, a New chat button and the link to the scheduled tasks. Titles come from the thread's state
 * (`values.title`, set by the harness after the first exchange) or a rename stored in its metadata.
 */
import type { Client, Thread } from "@langchain/langgraph-sdk";
import { Bot, CalendarClock, Check, MessageSquarePlus, Pencil, Search, Trash2, X } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";
import { AGENTS_URL, SCHEDULES_URL } from "../router";

/** A thread as the sidebar lists it. */
export interface ThreadItem {
  id: string;
  title: string;
  /** The title the user gave it (a rename), which wins over the one the harness set. */
  renamed?: string;
  updatedAt: string;
  status: string;
}

/** The title the user renamed a thread to, if any. */
function renamedTitle(thread: Thread): string | undefined {
  const renamed = (thread.metadata as { title?: unknown } | null)?.title;
  return typeof renamed === "string" && renamed ? renamed : undefined;
}

/** The title to show for a thread. */
export function threadTitle(thread: Thread): string {
  const renamed = renamedTitle(thread);
  if (renamed) return renamed;
  const title = (thread.values as { title?: unknown } | null)?.title;
  if (typeof title === "string" && title) return title;
  const first = ((thread.values as { messages?: { type?: string; content?: unknown }[] } | null)?.messages ?? []).find(
    (m) => m.type === "human",
  );
  if (first && typeof first.content === "string" && first.content) return first.content.slice(0, 60);
  return t("threads.newChat");
}

/**
 * The title over the open thread: the user's rename first, as in the list, then the title the run
 * streamed (newer than the list's copy), then the list's.
 */
export function headerTitle(item: ThreadItem | undefined, streamed: string | null | undefined, open: boolean): string {
  return item?.renamed ?? streamed ?? item?.title ?? (open ? t("threads.chat") : t("threads.newChat"));
}

/** Loads the list (newest first). */
export async function loadThreads(client: Client): Promise<ThreadItem[]> {
  const threads = await client.threads.search({ limit: 100, sortBy: "updated_at", sortOrder: "desc" });
  return threads.map((thread) => ({
    id: thread.thread_id,
    title: threadTitle(thread),
    renamed: renamedTitle(thread),
    updatedAt: thread.updated_at,
    status: thread.status,
  }));
}

/** Props of {@link Sidebar}. */
export interface SidebarProps {
  threads: ThreadItem[];
  currentId: string | null;
  onOpen: (id: string) => void;
  onNew: () => void;
  /** Opens the scheduled tasks page. */
  onSchedules: () => void;
  /** Opens the Agents page (no link without it). */
  onAgents?: () => void;
  agentsOpen?: boolean;
  /** The scheduled tasks page is open. */
  schedulesOpen: boolean;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
}

/** Renders the sidebar. */
export function Sidebar({
  threads,
  currentId,
  onOpen,
  onNew,
  onSchedules,
  schedulesOpen,
  onAgents,
  agentsOpen,
  onRename,
  onDelete,
}: SidebarProps) {
  useLocale();
  const [query, setQuery] = useState("");
  const [editing, setEditing] = useState<{ id: string; title: string }>();
  const [confirming, setConfirming] = useState<string>();
  const shown = threads.filter((thread) => thread.title.toLowerCase().includes(query.trim().toLowerCase()));
  return (
    <nav className="sidebar" aria-label={t("threads.label")}>
      <button type="button" className="new-chat" onClick={onNew}>
        <MessageSquarePlus size={16} aria-hidden /> {t("threads.newChat")}
      </button>
      <a
        href={SCHEDULES_URL}
        className={`nav-link ${schedulesOpen ? "active" : ""}`}
        aria-current={schedulesOpen ? "page" : undefined}
        onClick={(event) => {
          event.preventDefault();
          onSchedules();
        }}
      >
        <CalendarClock size={16} aria-hidden /> {t("threads.schedules")}
      </a>
      {onAgents && (
        <a
          href={AGENTS_URL}
          className={`nav-link ${agentsOpen ? "active" : ""}`}
          aria-current={agentsOpen ? "page" : undefined}
          onClick={(event) => {
            event.preventDefault();
            onAgents();
          }}
        >
          <Bot size={16} aria-hidden /> {t("agents.title")}
        </a>
      )}
      <label className="search">
        <Search size={14} aria-hidden />
        <input
          type="search"
          placeholder={t("threads.search")}
          aria-label={t("threads.search")}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </label>
      <ul className="thread-list">
        {shown.map((thread) => (
          <li
            key={thread.id}
            className={thread.id === currentId ? "active" : ""}
            data-testid="thread-item"
            data-thread-id={thread.id}
          >
            {editing?.id === thread.id ? (
              <form
                className="rename"
                onSubmit={(event) => {
                  event.preventDefault();
                  if (editing.title.trim()) onRename(thread.id, editing.title.trim());
                  setEditing(undefined);
                }}
              >
                <input
                  autoFocus
                  aria-label={t("threads.newTitle")}
                  value={editing.title}
                  onChange={(event) => setEditing({ id: thread.id, title: event.target.value })}
                />
                <button type="submit" className="icon-btn" aria-label={t("threads.saveTitle")}>
                  <Check size={14} />
                </button>
              </form>
            ) : confirming === thread.id ? (
              <div className="confirm">
                <span>{t("threads.deleteConfirm")}</span>
                <button
                  type="button"
                  className="danger"
                  onClick={() => (setConfirming(undefined), onDelete(thread.id))}
                >
                  {t("common.delete")}
                </button>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={t("common.cancel")}
                  onClick={() => setConfirming(undefined)}
                >
                  <X size={14} />
                </button>
              </div>
            ) : (
              <>
                <a
                  href={`/threads/${encodeURIComponent(thread.id)}`}
                  className="thread-link"
                  onClick={(event) => {
                    event.preventDefault();
                    onOpen(thread.id);
                  }}
                >
                  {thread.status === "busy" && <span className="dot" role="img" aria-label={t("threads.running")} />}
                  {thread.title}
                </a>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={t("threads.rename", { title: thread.title })}
                  onClick={() => setEditing({ id: thread.id, title: thread.title })}
                >
                  <Pencil size={14} />
                </button>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label={t("threads.delete", { title: thread.title })}
                  onClick={() => setConfirming(thread.id)}
                >
                  <Trash2 size={14} />
                </button>
              </>
            )}
          </li>
        ))}
        {shown.length === 0 && <li className="muted small">{query ? t("threads.noMatch") : t("threads.empty")}</li>}
      </ul>
    </nav>
  );
}

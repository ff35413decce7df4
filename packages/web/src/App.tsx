/**
 * The app shell: thread sidebar, the chat of the thread the URL names, the artifacts panel, the header
 * (title, context meter, settings) and the states around them: API key needed, server unreachable (a
 * banner that keeps retrying; the draft is kept), and a thread id that does not exist.
 */
import { FolderOpen, Menu, Settings as SettingsIcon, WifiOff } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { apiFetch, apiUrl, isNotFound, isUnauthorized, makeClient, saveApiKey, savedApiKey } from "./api";
import { Chat } from "./chat/Chat";
import { Artifacts } from "./harness/Artifacts";
import { navigate, useRoute } from "./router";
import { ApiKeyForm } from "./settings/ApiKeyForm";
import { SettingsPanel } from "./settings/SettingsPanel";
import { useSettings } from "./settings/settings";
import { headerTitle, loadThreads, Sidebar, type ThreadItem } from "./threads/Sidebar";

type Connection = "checking" | "ok" | "key-needed" | "key-rejected" | "offline";

/** The whole app. */
export function App() {
  const route = useRoute();
  const [apiKey, setApiKey] = useState(savedApiKey);
  const client = useMemo(() => makeClient(apiKey), [apiKey]);
  const [connection, setConnection] = useState<Connection>("checking");
  const [threads, setThreads] = useState<ThreadItem[]>([]);
  const [settings, updateSettings] = useSettings();
  const [models, setModels] = useState<{ name: string; display_name?: string }[]>();
  const [showSettings, setShowSettings] = useState(false);
  const [showSidebar, setShowSidebar] = useState(false);
  const [missing, setMissing] = useState<string>();
  const [threadState, setThreadState] = useState<{ title?: string | null; artifacts: string[]; tokens?: number }>({
    artifacts: [],
  });
  const [panel, setPanel] = useState<{ open: boolean; selected?: string }>({ open: false });
  const aliases = useRef(new Map<string, string>());
  const [newChatKey, setNewChatKey] = useState(() => `new-${Date.now()}`);
  const threadId = route.page === "thread" ? route.threadId : null;

  const refresh = useCallback(async () => {
    try {
      setThreads(await loadThreads(client));
      setConnection("ok");
    } catch (error) {
      if (isUnauthorized(error)) setConnection(apiKey ? "key-rejected" : "key-needed");
      else setConnection("offline");
    }
  }, [client, apiKey]);

  useEffect(() => {
    void refresh();
  }, [refresh]);
  useEffect(() => {
    if (connection !== "offline") return;
    const timer = setInterval(() => void refresh(), 3000);
    return () => clearInterval(timer);
  }, [connection, refresh]);
  // Notice a server that went away while the page sat idle (GET /api/ok needs no key).
  useEffect(() => {
    if (connection !== "ok") return;
    const timer = setInterval(() => {
      fetch(`${apiUrl()}/ok`).then(
        (response) => !response.ok && setConnection("offline"),
        () => setConnection("offline"),
      );
    }, 5000);
    return () => clearInterval(timer);
  }, [connection]);
  useEffect(() => {
    if (connection !== "ok") return;
    apiFetch("/models", apiKey)
      .then((response) => response.json() as Promise<{ models?: { name: string; display_name?: string }[] }>)
      .then(
        (body) => setModels(body.models),
        () => setModels(undefined),
      );
  }, [connection, apiKey]);

  // A thread named by the URL that this tab did not just create must exist.
  useEffect(() => {
    setMissing(undefined);
    setPanel({ open: false });
    setThreadState({ artifacts: [] });
    if (!threadId || aliases.current.has(threadId) || connection !== "ok") return;
    client.threads.get(threadId).catch((error: unknown) => {
      if (isNotFound(error)) setMissing(threadId);
    });
  }, [threadId, client, connection]);

  const onThreadCreated = useCallback(
    (id: string) => {
      aliases.current.set(id, newChatKey);
      navigate(`/threads/${encodeURIComponent(id)}`, true);
      void refresh();
    },
    [newChatKey, refresh],
  );
  const onState = useCallback((state: { title?: string | null; artifacts: string[]; tokens?: number }) => {
    setThreadState((previous) => {
      // New artifacts open the panel beside the chat; on a phone it would cover the chat, so the chips suffice.
      const wide = window.matchMedia?.("(min-width: 761px)").matches ?? true;
      if (wide && state.artifacts.length > previous.artifacts.length)
        setPanel((p) => (p.open ? p : { open: true, selected: state.artifacts[state.artifacts.length - 1] }));
      return state;
    });
  }, []);

  if (connection === "key-needed" || connection === "key-rejected") {
    return (
      <ApiKeyForm
        rejected={connection === "key-rejected"}
        onSave={(key) => {
          saveApiKey(key);
          setConnection("checking");
          setApiKey(key);
        }}
      />
    );
  }

  const chatKey = threadId ? (aliases.current.get(threadId) ?? threadId) : newChatKey;
  const title = headerTitle(
    threads.find((thread) => thread.id === threadId),
    threadState.title,
    Boolean(threadId),
  );
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the app closes the drawers
    <div
      className={`app ${showSidebar ? "sidebar-open" : ""} ${panel.open && threadId ? "panel-open" : ""}`}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          setShowSidebar(false);
          setShowSettings(false);
        }
      }}
    >
      {showSidebar && <div className="backdrop" aria-hidden onClick={() => setShowSidebar(false)} />}
      <Sidebar
        threads={threads}
        currentId={threadId}
        onOpen={(id) => {
          setShowSidebar(false);
          navigate(`/threads/${encodeURIComponent(id)}`);
        }}
        onNew={() => {
          setShowSidebar(false);
          setNewChatKey(`new-${Date.now()}`);
          navigate("/");
        }}
        onRename={(id, newTitle) => {
          void client.threads.update(id, { metadata: { title: newTitle } }).then(refresh, () => undefined);
        }}
        onDelete={(id) => {
          void client.threads.delete(id).then(() => {
            if (id === threadId) navigate("/");
            return refresh();
          });
        }}
      />
      <main className="main">
        <header className="header">
          <button
            type="button"
            className="icon-btn menu"
            aria-label="Chats"
            onClick={() => setShowSidebar(!showSidebar)}
          >
            <Menu size={18} />
          </button>
          <h2 className="title" data-testid="thread-title">
            {title}
          </h2>
          {threadState.tokens !== undefined && (
            <span
              className="meter muted small"
              title="Tokens in the model's context at the last call"
              data-testid="context-meter"
            >
              {threadState.tokens.toLocaleString()} tokens
            </span>
          )}
          {threadId && threadState.artifacts.length > 0 && (
            <button
              type="button"
              className="icon-btn"
              aria-label={`Artifacts ${threadState.artifacts.length}`}
              onClick={() => setPanel((p) => ({ ...p, open: !p.open }))}
            >
              <FolderOpen size={18} />
              <span className="badge">{threadState.artifacts.length}</span>
            </button>
          )}
          <div className="settings-anchor">
            <button
              type="button"
              className="icon-btn"
              aria-label="Settings"
              aria-expanded={showSettings}
              onClick={() => setShowSettings(!showSettings)}
            >
              <SettingsIcon size={18} />
            </button>
            {showSettings && (
              <SettingsPanel
                settings={settings}
                models={models}
                apiKey={apiKey}
                onChange={updateSettings}
                onForgetKey={
                  apiKey
                    ? () => {
                        saveApiKey("");
                        setApiKey(undefined);
                      }
                    : undefined
                }
              />
            )}
          </div>
        </header>
        {connection === "offline" && (
          <div className="banner" role="status">
            <WifiOff size={16} aria-hidden /> The server is not reachable. Retrying… (what you type is kept)
          </div>
        )}
        {missing ? (
          <div className="center-page" data-testid="not-found">
            <div className="card">
              <h1>Chat not found</h1>
              <p className="muted">There is no chat with id {missing} on this server. It may have been deleted.</p>
              <button type="button" onClick={() => navigate("/")}>
                Start a new chat
              </button>
            </div>
          </div>
        ) : (
          <Chat
            key={chatKey}
            client={client}
            apiKey={apiKey}
            threadId={threadId}
            settings={settings}
            onThreadCreated={onThreadCreated}
            onRunFinished={() => void refresh()}
            onUnauthorized={() => setConnection(apiKey ? "key-rejected" : "key-needed")}
            onState={onState}
            onOpenArtifact={(path) => setPanel({ open: true, selected: path })}
          />
        )}
      </main>
      {panel.open && threadId && threadState.artifacts.length > 0 && (
        <Artifacts
          threadId={threadId}
          paths={threadState.artifacts}
          apiKey={apiKey}
          selected={panel.selected}
          onSelect={(selected) => setPanel({ open: true, selected })}
          onClose={() => setPanel({ open: false })}
        />
      )}
    </div>
  );
}

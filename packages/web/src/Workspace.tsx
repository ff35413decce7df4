/**
 * The app once the server lets this browser in: thread sidebar, the chat of the thread the URL names,
 * the artifacts panel, the header (title, context meter, settings, the account menu when signed in),
 * the account pages, the scheduled tasks page, and the states around them: server unreachable (a banner that keeps retrying; the
 * draft is kept), and a thread id that does not exist. A 401 goes back to the gate ({@link App}).
 */
import { FolderOpen, Menu, Settings as SettingsIcon, WifiOff } from "lucide-react";
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Me } from "./account/account-api";
import { AccountMenu } from "./account/AccountMenu";
import { apiFetch, apiUrl, isNotFound, isUnauthorized, makeClient } from "./api";
import { Chat } from "./chat/Chat";
import { Artifacts } from "./harness/Artifacts";
import { intlLocale, type MessageKey, t, useLocale } from "./i18n";
import { AGENTS_URL, type AccountTab, navigate, SCHEDULES_URL, useRoute } from "./router";
import { SettingsPanel } from "./settings/SettingsPanel";
import type { Settings } from "./settings/settings";
import { headerTitle, loadThreads, Sidebar, type ThreadItem } from "./threads/Sidebar";

// The account pages (tokens, password, users) load on first visit: most sessions never open them.
const AccountPage = lazy(() => import("./account/AccountPage").then((module) => ({ default: module.AccountPage })));
// And the Agents page.
const AgentsPage = lazy(() => import("./agents/AgentsPage").then((module) => ({ default: module.AgentsPage })));
// So does the scheduled tasks page, with croner for its previews.
const SchedulesPage = lazy(() =>
  import("./schedules/SchedulesPage").then((module) => ({ default: module.SchedulesPage })),
);

type Connection = "checking" | "ok" | "offline";

const ACCOUNT_TITLES: Record<AccountTab, MessageKey> = {
  tokens: "account.tokens",
  password: "account.password",
  users: "account.users",
};

/** Props of {@link Workspace}. */
export interface WorkspaceProps {
  apiKey: string | undefined;
  /** The signed-in user; null while the server has no accounts. */
  user: Me | null;
  settings: Settings;
  onSettings: (patch: Partial<Settings>) => void;
  /** The server answered 401: the gate asks again who this is. */
  onUnauthorized: () => void;
  onSignOut: () => void;
  onForgetKey?: () => void;
}

/** Renders the app. */
export function Workspace({
  apiKey,
  user,
  settings,
  onSettings,
  onUnauthorized,
  onSignOut,
  onForgetKey,
}: WorkspaceProps) {
  useLocale();
  const route = useRoute();
  const client = useMemo(() => makeClient(apiKey), [apiKey]);
  useLocale();
  const [connection, setConnection] = useState<Connection>("checking");
  const [threads, setThreads] = useState<ThreadItem[]>([]);
  const [models, setModels] = useState<{ name: string; display_name?: string }[]>();
  const [showSettings, setShowSettings] = useState(false);
  const [showSidebar, setShowSidebar] = useState(false);
  const [missing, setMissing] = useState<string>();
  // The open thread has earlier versions (a regenerate or edit marked it): the chat reads its history.
  const [versioned, setVersioned] = useState<string>();
  const [threadState, setThreadState] = useState<{ title?: string | null; artifacts: string[]; tokens?: number }>({
    artifacts: [],
  });
  const [panel, setPanel] = useState<{ open: boolean; selected?: string }>({ open: false });
  const aliases = useRef(new Map<string, string>());
  const [newChatKey, setNewChatKey] = useState(() => `new-${Date.now()}`);
  const threadId = route.page === "thread" ? route.threadId : null;
  // The account pages exist only with accounts; without, `/settings` is a new chat as before.
  const accountTab = route.page === "account" && user ? route.tab : undefined;
  const schedules = route.page === "schedules";
  const agentsPage = route.page === "agents";

  const refresh = useCallback(async () => {
    try {
      setThreads(await loadThreads(client));
      setConnection("ok");
    } catch (error) {
      if (isUnauthorized(error)) onUnauthorized();
      else setConnection("offline");
    }
  }, [client, onUnauthorized]);

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
    client.threads.get(threadId).then(
      (thread) => {
        if (thread.metadata?.has_versions === true) setVersioned(threadId);
      },
      (error: unknown) => {
        if (isNotFound(error)) setMissing(threadId);
      },
    );
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

  const chatKey = threadId ? (aliases.current.get(threadId) ?? threadId) : newChatKey;
  const title = accountTab
    ? t(ACCOUNT_TITLES[accountTab])
    : schedules
      ? t("threads.schedules")
      : agentsPage
        ? t("agents.title")
        : headerTitle(
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
        onSchedules={() => {
          setShowSidebar(false);
          navigate(SCHEDULES_URL);
        }}
        schedulesOpen={schedules}
        onAgents={() => {
          setShowSidebar(false);
          navigate(AGENTS_URL);
        }}
        agentsOpen={agentsPage}
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
            aria-label={t("workspace.chats")}
            onClick={() => setShowSidebar(!showSidebar)}
          >
            <Menu size={18} />
          </button>
          <h2 className="title" data-testid="thread-title">
            {title}
          </h2>
          {settings.agent && !agentsPage && (
            <span className="agent-chip" data-testid="agent-chip">
              {t("agents.chip", { name: settings.agent })}
              <button
                type="button"
                className="icon-btn"
                aria-label={t("agents.chipClear")}
                onClick={() => onSettings({ agent: "" })}
              >
                ×
              </button>
            </span>
          )}
          {threadState.tokens !== undefined && (
            <span className="meter muted small" title={t("workspace.tokensTitle")} data-testid="context-meter">
              {t("workspace.tokens", { count: threadState.tokens.toLocaleString(intlLocale()) })}
            </span>
          )}
          {threadId && threadState.artifacts.length > 0 && (
            <button
              type="button"
              className="icon-btn"
              aria-label={t("workspace.artifacts", { count: threadState.artifacts.length })}
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
              aria-label={t("settings.title")}
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
                onChange={onSettings}
                onForgetKey={user ? undefined : onForgetKey}
              />
            )}
          </div>
          {user && <AccountMenu user={user} onSignOut={onSignOut} />}
        </header>
        {connection === "offline" && (
          <div className="banner" role="status">
            <WifiOff size={16} aria-hidden /> {t("workspace.offline")}
          </div>
        )}
        {accountTab ? (
          <Suspense fallback={<div className="center-page muted">{t("common.loading")}</div>}>
            <AccountPage tab={accountTab} user={user!} apiKey={apiKey} />
          </Suspense>
        ) : agentsPage ? (
          <Suspense fallback={<div className="center-page muted">{t("common.loading")}</div>}>
            <AgentsPage
              apiKey={apiKey}
              models={models}
              current={settings.agent ?? ""}
              onChat={(name) => {
                onSettings({ agent: name });
                setNewChatKey(`new-${Date.now()}`);
                navigate("/");
              }}
            />
          </Suspense>
        ) : schedules ? (
          <Suspense fallback={<div className="center-page muted">{t("common.loading")}</div>}>
            <SchedulesPage client={client} />
          </Suspense>
        ) : missing ? (
          <div className="center-page" data-testid="not-found">
            <div className="card">
              <h1>{t("workspace.notFound")}</h1>
              <p className="muted">{t("workspace.notFoundText", { id: missing })}</p>
              <button type="button" onClick={() => navigate("/")}>
                {t("workspace.startNew")}
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
            onUnauthorized={onUnauthorized}
            onState={onState}
            onOpenArtifact={(path) => setPanel({ open: true, selected: path })}
            conversations={threads}
            versioned={versioned === threadId}
          />
        )}
      </main>
      {panel.open && threadId && (threadState.artifacts.length > 0 || panel.selected) && (
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

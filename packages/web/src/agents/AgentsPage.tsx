/**
 * The Agents page (loaded on first visit): the person's custom agents as cards, each opened in a new
 * chat, edited or deleted in place, and the editor for a new one. Choosing "Chat" makes the agent the
 * one new chats run until the person picks the default agent again.
 */
import { Bot, Pencil, Plus, Trash2 } from "lucide-react";
import { useCallback, useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { useServerList } from "../server-list";
import { AgentEditor } from "./AgentEditor";
import { type Agent, createAgent, deleteAgent, listAgents, updateAgent } from "./agents-api";

/** Props of {@link AgentsPage}. */
export interface AgentsPageProps {
  apiKey: string | undefined;
  models: { name: string; display_name?: string }[] | undefined;
  /** The agent new chats use ("" for the default agent). */
  current: string;
  /** Starts a new chat with `name` ("" for the default agent). */
  onChat: (name: string) => void;
}

/** Renders the page. */
export function AgentsPage({ apiKey, models, current, onChat }: AgentsPageProps) {
  useLocale();
  const {
    items: agents,
    error,
    setError,
    reload: load,
  } = useServerList(useCallback(() => listAgents(apiKey), [apiKey]));
  const [editing, setEditing] = useState<Agent | "new">();
  const [confirming, setConfirming] = useState<string>();

  return (
    <div className="account-page">
      {editing ? (
        <AgentEditor
          agent={editing === "new" ? undefined : editing}
          models={models}
          onCancel={() => setEditing(undefined)}
          onSave={async (name, draft) => {
            if (editing === "new") await createAgent(apiKey, name, draft);
            else await updateAgent(apiKey, name, draft);
            setEditing(undefined);
            await load();
          }}
        />
      ) : (
        <section className="account-section" aria-label={t("agents.title")}>
          <p className="muted">{t("agents.intro")}</p>
          <div className="actions">
            <button type="button" onClick={() => setEditing("new")}>
              <Plus size={16} aria-hidden /> {t("agents.new")}
            </button>
            {current && (
              <button type="button" className="secondary" onClick={() => onChat("")}>
                {t("agents.useDefault")}
              </button>
            )}
          </div>
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
          {agents === undefined && !error && <p className="muted">{t("common.loading")}</p>}
          {agents?.length === 0 && <p className="muted">{t("agents.empty")}</p>}
          <ul className="agent-cards">
            {agents?.map((agent) => (
              <li key={agent.name} className="card agent-card" data-testid={`agent-${agent.name}`}>
                <h3>
                  <Bot size={16} aria-hidden /> {agent.name}
                  {agent.name === current && <span className="badge">{t("agents.inUse")}</span>}
                </h3>
                <p className="muted">{agent.description || t("agents.noDescription")}</p>
                <div className="actions">
                  <button type="button" onClick={() => onChat(agent.name)}>
                    {t("agents.chat")}
                  </button>
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={t("agents.edit", { name: agent.name })}
                    onClick={() => setEditing(agent)}
                  >
                    <Pencil size={16} />
                  </button>
                  {confirming === agent.name ? (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        setConfirming(undefined);
                        void deleteAgent(apiKey, agent.name).then(load, (failure) => setError(errorDetail(failure)));
                      }}
                    >
                      {t("agents.confirmDelete")}
                    </button>
                  ) : (
                    <button
                      type="button"
                      className="icon-btn"
                      aria-label={t("agents.delete", { name: agent.name })}
                      onClick={() => setConfirming(agent.name)}
                    >
                      <Trash2 size={16} />
                    </button>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

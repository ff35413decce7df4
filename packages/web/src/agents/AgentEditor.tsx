/**
 * The form of one custom agent: name (when new), description, soul, model, tool groups and skills.
 * Unchecked "limit tools" and an empty skills field mean no restriction, as the server reads `null`.
 */
import { useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { type Agent, type AgentDraft, TOOL_GROUPS } from "./agents-api";

/** Props of {@link AgentEditor}. */
export interface AgentEditorProps {
  /** The agent being edited; undefined for a new one. */
  agent?: Agent;
  models: { name: string; display_name?: string }[] | undefined;
  onSave: (name: string, draft: AgentDraft) => Promise<void>;
  onCancel: () => void;
}

/** Renders the form. */
export function AgentEditor({ agent, models, onSave, onCancel }: AgentEditorProps) {
  useLocale();
  const [name, setName] = useState(agent?.name ?? "");
  const [description, setDescription] = useState(agent?.description ?? "");
  const [soul, setSoul] = useState(agent?.soul ?? "");
  const [model, setModel] = useState(agent?.model ?? "");
  const [limitTools, setLimitTools] = useState(agent?.tool_groups != null);
  const [groups, setGroups] = useState<string[]>(agent?.tool_groups ?? [...TOOL_GROUPS]);
  const [skills, setSkills] = useState(agent?.skills?.join(", ") ?? "");
  const [error, setError] = useState<string>();
  const [saving, setSaving] = useState(false);

  const submit = async () => {
    if (!agent && !/^[A-Za-z0-9-]+$/.test(name)) {
      setError(t("agents.nameRule"));
      return;
    }
    setSaving(true);
    setError(undefined);
    try {
      const list = skills
        .split(",")
        .map((skill) => skill.trim())
        .filter(Boolean);
      await onSave(agent?.name ?? name, {
        description,
        soul,
        model: model || null,
        tool_groups: limitTools ? groups : null,
        skills: list.length > 0 ? list : null,
      });
    } catch (failure) {
      setError(errorDetail(failure));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="account-section agent-editor"
      aria-label={agent ? t("agents.editTitle", { name: agent.name }) : t("agents.newTitle")}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <h2>{agent ? t("agents.editTitle", { name: agent.name }) : t("agents.newTitle")}</h2>
      {!agent && (
        <>
          <label>
            {t("agents.name")}
            <input
              value={name}
              onChange={(event) => setName(event.target.value)}
              placeholder="research-bot"
              aria-describedby="agent-name-rule"
              required
            />
          </label>
          <p id="agent-name-rule" className="muted small">
            {t("agents.nameRule")}
          </p>
        </>
      )}
      <label>
        {t("agents.description")}
        <input value={description} onChange={(event) => setDescription(event.target.value)} />
      </label>
      <label>
        {t("agents.soul")}
        <textarea
          rows={8}
          value={soul}
          onChange={(event) => setSoul(event.target.value)}
          aria-describedby="agent-soul-hint"
        />
      </label>
      <p id="agent-soul-hint" className="muted small">
        {t("agents.soulHint")}
      </p>
      <label>
        {t("agents.model")}
        <select value={model} onChange={(event) => setModel(event.target.value)}>
          <option value="">{t("agents.modelDefault")}</option>
          {models?.map((entry) => (
            <option key={entry.name} value={entry.name}>
              {entry.display_name ?? entry.name}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>
          <label>
            <input type="checkbox" checked={limitTools} onChange={(event) => setLimitTools(event.target.checked)} />{" "}
            {t("agents.limitTools")}
          </label>
        </legend>
        {limitTools &&
          TOOL_GROUPS.map((group) => (
            <label key={group} className="inline">
              <input
                type="checkbox"
                checked={groups.includes(group)}
                onChange={(event) =>
                  setGroups(event.target.checked ? [...groups, group] : groups.filter((item) => item !== group))
                }
              />{" "}
              {group}
            </label>
          ))}
      </fieldset>
      <label>
        {t("agents.skills")}
        <input
          value={skills}
          onChange={(event) => setSkills(event.target.value)}
          placeholder="deep-research, …"
          aria-describedby="agent-skills-hint"
        />
      </label>
      <p id="agent-skills-hint" className="muted small">
        {t("agents.skillsHint")}
      </p>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={saving}>
          {t("agents.save")}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t("agents.cancel")}
        </button>
      </div>
    </form>
  );
}

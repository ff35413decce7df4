/**
 * Settings in three tabs: General (run switches, the model picker when the server lists models, the
 * theme), Memory (the agent's facts about the user) and Skills (enable/disable).
 */
import { useState } from "react";
import { type Locale, type MessageKey, setLocale, storedLocale, t, useLocale } from "../i18n";
import { McpPage } from "./McpPage";
import { MemoryPage } from "./MemoryPage";
import type { Settings } from "./settings";
import { SkillsPage } from "./SkillsPage";
import { SubagentsPage } from "./SubagentsPage";

/** Props of {@link SettingsPanel}. */
export interface SettingsPanelProps {
  settings: Settings;
  models: { name: string; display_name?: string }[] | undefined;
  onChange: (patch: Partial<Settings>) => void;
  onForgetKey?: () => void;
  /** The API key for the memory and skills routes. */
  apiKey?: string;
}

type Tab = "general" | "memory" | "skills" | "mcp" | "subagents";
const TABS: { id: Tab; label: MessageKey }[] = [
  { id: "general", label: "settings.tab.general" },
  { id: "memory", label: "settings.tab.memory" },
  { id: "skills", label: "settings.tab.skills" },
  { id: "mcp", label: "settings.tab.mcp" },
  { id: "subagents", label: "settings.tab.subagents" },
];

/** Renders the settings popover content. */
export function SettingsPanel({ settings, models, onChange, onForgetKey, apiKey }: SettingsPanelProps) {
  useLocale();
  const [tab, setTab] = useState<Tab>("general");
  return (
    <div className={`settings settings-${tab}`} role="dialog" aria-label={t("settings.title")}>
      <div className="tabs" role="tablist" aria-label={t("settings.tabs")}>
        {TABS.map((item) => (
          <button
            key={item.id}
            id={`settings-tab-${item.id}`}
            aria-controls="settings-tabpanel"
            type="button"
            role="tab"
            aria-selected={tab === item.id}
            className={tab === item.id ? "tab active" : "tab"}
            onClick={() => setTab(item.id)}
          >
            {t(item.label)}
          </button>
        ))}
      </div>
      <div id="settings-tabpanel" role="tabpanel" aria-labelledby={`settings-tab-${tab}`} className="tabpanel">
        {tab === "memory" && <MemoryPage apiKey={apiKey} />}
        {tab === "skills" && <SkillsPage apiKey={apiKey} />}
        {tab === "mcp" && <McpPage apiKey={apiKey} />}
        {tab === "subagents" && (
          <SubagentsPage
            apiKey={apiKey}
            useSubagents={settings.subagents}
            onUseSubagents={(subagents) => onChange({ subagents })}
          />
        )}

        {tab === "general" && (
          <>
            {models && models.length > 0 && (
              <label className="row">
                {t("settings.model")}
                <select
                  aria-label={t("settings.model")}
                  value={settings.model}
                  onChange={(event) => onChange({ model: event.target.value })}
                >
                  <option value="">{t("settings.model.default")}</option>
                  {models.map((model) => (
                    <option key={model.name} value={model.name}>
                      {model.display_name ?? model.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <label className="row">
              <input
                type="checkbox"
                checked={settings.planMode}
                onChange={(event) => onChange({ planMode: event.target.checked })}
              />{" "}
              {t("settings.planMode")}
            </label>
            <label className="row">
              <input
                type="checkbox"
                checked={settings.thinking}
                onChange={(event) => onChange({ thinking: event.target.checked })}
              />{" "}
              {t("settings.thinking")}
            </label>
            <label className="row">
              <input
                type="checkbox"
                checked={settings.subagents}
                onChange={(event) => onChange({ subagents: event.target.checked })}
              />{" "}
              {t("settings.subagents")}
            </label>
            <label className="row">
              {t("settings.theme")}
              <select
                aria-label={t("settings.theme")}
                value={settings.theme}
                onChange={(event) => onChange({ theme: event.target.value as Settings["theme"] })}
              >
                <option value="system">{t("settings.theme.system")}</option>
                <option value="light">{t("settings.theme.light")}</option>
                <option value="dark">{t("settings.theme.dark")}</option>
              </select>
            </label>
            <LanguageSelect />
            {onForgetKey && (
              <button type="button" onClick={onForgetKey}>
                {t("settings.forgetKey")}
              </button>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** Follow the browser, English or Chinese; the choice is kept in localStorage by the i18n module. */
function LanguageSelect() {
  useLocale();
  const [choice, setChoice] = useState<Locale | "">(() => storedLocale() ?? "");
  return (
    <label className="row">
      {t("settings.language")}
      <select
        aria-label={t("settings.language")}
        value={choice}
        onChange={(event) => {
          const next = (event.target.value || undefined) as Locale | undefined;
          setChoice(next ?? "");
          setLocale(next);
        }}
      >
        <option value="">{t("settings.language.browser")}</option>
        <option value="en">{t("settings.language.en")}</option>
        <option value="zh">{t("settings.language.zh")}</option>
      </select>
    </label>
  );
}

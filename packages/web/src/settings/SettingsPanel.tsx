/**
 * Settings in three tabs: General (run switches, the model picker when the server lists models, the
 * theme), Memory (the agent's facts about the user) and Skills (enable/disable).
 */
import { useState } from "react";
import { MemoryPage } from "./MemoryPage";
import type { Settings } from "./settings";
import { SkillsPage } from "./SkillsPage";

/** Props of {@link SettingsPanel}. */
export interface SettingsPanelProps {
  settings: Settings;
  models: { name: string; display_name?: string }[] | undefined;
  onChange: (patch: Partial<Settings>) => void;
  onForgetKey?: () => void;
  /** The API key for the memory and skills routes. */
  apiKey?: string;
}

type Tab = "general" | "memory" | "skills";
const TABS: { id: Tab; label: string }[] = [
  { id: "general", label: "General" },
  { id: "memory", label: "Memory" },
  { id: "skills", label: "Skills" },
];

/** Renders the settings popover content. */
export function SettingsPanel({ settings, models, onChange, onForgetKey, apiKey }: SettingsPanelProps) {
  const [tab, setTab] = useState<Tab>("general");
  return (
    <div className={`settings settings-${tab}`} role="dialog" aria-label="Settings">
      <div className="tabs" role="tablist" aria-label="Settings pages">
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
            {item.label}
          </button>
        ))}
      </div>
      <div id="settings-tabpanel" role="tabpanel" aria-labelledby={`settings-tab-${tab}`} className="tabpanel">
        {tab === "memory" && <MemoryPage apiKey={apiKey} />}
        {tab === "skills" && <SkillsPage apiKey={apiKey} />}
        {tab === "general" && (
          <>
            {models && models.length > 0 && (
              <label className="row">
                Model
                <select
                  aria-label="Model"
                  value={settings.model}
                  onChange={(event) => onChange({ model: event.target.value })}
                >
                  <option value="">Server default</option>
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
              Plan mode
            </label>
            <label className="row">
              <input
                type="checkbox"
                checked={settings.thinking}
                onChange={(event) => onChange({ thinking: event.target.checked })}
              />{" "}
              Thinking
            </label>
            <label className="row">
              <input
                type="checkbox"
                checked={settings.subagents}
                onChange={(event) => onChange({ subagents: event.target.checked })}
              />{" "}
              Subagents
            </label>
            <label className="row">
              Theme
              <select
                aria-label="Theme"
                value={settings.theme}
                onChange={(event) => onChange({ theme: event.target.value as Settings["theme"] })}
              >
                <option value="system">System</option>
                <option value="light">Light</option>
                <option value="dark">Dark</option>
              </select>
            </label>
            {onForgetKey && (
              <button type="button" onClick={onForgetKey}>
                Forget API key
              </button>
            )}
          </>
        )}
      </div>
    </div>
  );
}

/** Run switches (plan mode, thinking, subagents), the model picker when the server lists models, and the theme. */
import type { Settings } from "./settings";

/** Props of {@link SettingsPanel}. */
export interface SettingsPanelProps {
  settings: Settings;
  models: { name: string; display_name?: string }[] | undefined;
  onChange: (patch: Partial<Settings>) => void;
  onForgetKey?: () => void;
}

/** Renders the settings popover content. */
export function SettingsPanel({ settings, models, onChange, onForgetKey }: SettingsPanelProps) {
  return (
    <div className="settings" role="dialog" aria-label="Settings">
      {models && models.length > 0 && (
        <label className="row">
          Model
          <select aria-label="Model" value={settings.model} onChange={(event) => onChange({ model: event.target.value })}>
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
        <input type="checkbox" checked={settings.planMode} onChange={(event) => onChange({ planMode: event.target.checked })} /> Plan mode
      </label>
      <label className="row">
        <input type="checkbox" checked={settings.thinking} onChange={(event) => onChange({ thinking: event.target.checked })} /> Thinking
      </label>
      <label className="row">
        <input type="checkbox" checked={settings.subagents} onChange={(event) => onChange({ subagents: event.target.checked })} /> Subagents
      </label>
      <label className="row">
        Theme
        <select aria-label="Theme" value={settings.theme} onChange={(event) => onChange({ theme: event.target.value as Settings["theme"] })}>
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
    </div>
  );
}

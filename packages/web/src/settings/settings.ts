/**
 * Run switches and look, kept in localStorage: plan mode, thinking, subagents and the chosen model are
 * sent with each run as `context` (the server reads DeerFlow's run options there); the theme is applied
 * to the document.
 */
import { useCallback, useEffect, useState } from "react";

/** What the user chose. */
export interface Settings {
  planMode: boolean;
  thinking: boolean;
  subagents: boolean;
  model: string;
  /** The custom agent new runs use ("" for the default agent). */
  agent?: string;
  theme: "system" | "light" | "dark";
}

const DEFAULTS: Settings = { planMode: true, thinking: false, subagents: false, model: "", agent: "", theme: "system" };
const STORAGE = "deerflow.settings";

function load(): Settings {
  try {
    return { ...DEFAULTS, ...(JSON.parse(localStorage.getItem(STORAGE) ?? "{}") as Partial<Settings>) };
  } catch {
    return DEFAULTS;
  }
}

/** The settings and a setter that saves them. */
export function useSettings(): [Settings, (patch: Partial<Settings>) => void] {
  const [settings, setSettings] = useState(load);
  const update = useCallback((patch: Partial<Settings>) => {
    setSettings((current) => {
      const next = { ...current, ...patch };
      localStorage.setItem(STORAGE, JSON.stringify(next));
      return next;
    });
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = settings.theme;
  }, [settings.theme]);
  return [settings, update];
}

/** The run `context` for these settings (DeerFlow's option names). */
export function runContext(settings: Settings): Record<string, unknown> {
  return {
    is_plan_mode: settings.planMode,
    thinking_enabled: settings.thinking,
    subagent_enabled: settings.subagents,
    ...(settings.model ? { model_name: settings.model } : {}),
    ...(settings.agent ? { agent_name: settings.agent } : {}),
  };
}

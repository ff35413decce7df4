/**
 * English strings, by key. Keys are grouped by the part of the app that shows them
 * (`common.`, `settings.`, `chat.`, …); add new ones in their group and the same key to `zh.ts`.
 */
export const en = {
  "common.loading": "Loading…",
  "settings.language": "Language",
  "settings.language.browser": "Follow the browser",
  "settings.language.en": "English",
  "settings.language.zh": "中文",
} as const;

export type MessageKey = keyof typeof en;

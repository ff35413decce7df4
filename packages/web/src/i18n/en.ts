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
  // batch_task: the progress bar on the tool card
  "batch.progress": "{done} of {total} done",
  "batch.progressFailed": "{done} of {total} done, {failed} failed",
  "batch.progressLabel": "Batch progress",
} as const;

export type MessageKey = keyof typeof en;

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
  // Answer actions (suggestions, feedback, export).
  "answer.thumbsUp": "Good answer",
  "answer.thumbsDown": "Bad answer",
  "answer.thanks": "Thanks for the feedback",
  "answer.commentPlaceholder": "Add a comment (optional)",
  "answer.commentSend": "Save comment",
  "answer.export": "Export",
  "answer.exportMarkdown": "Markdown (.md)",
  "answer.exportJson": "JSON (.json)",
  "answer.suggestions": "Suggested follow-up questions",
} as const;

export type MessageKey = keyof typeof en;

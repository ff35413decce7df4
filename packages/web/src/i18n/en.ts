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
  // Verified delegation (subagent cards: receipts, flags, acceptance criteria, queue)
  "subagents.receipts": "{count} tool receipts",
  "subagents.flagged": "{count} flagged",
  "subagents.flagsNote":
    "The runtime found parts of this report that no tool receipt supports; check them before relying on them.",
  "subagents.flag.unknownCitation": "Cites {id}, which no tool call produced",
  "subagents.flag.unbackedClaim": "Claims {claim} without a receipt showing it",
  "subagents.criterion.met": "Met",
  "subagents.criterion.unmet": "Unmet",
  "subagents.criterion.unverified": "Unverified",
  "subagents.queued": "Waiting for a subagent slot (position {position})",
} as const;

export type MessageKey = keyof typeof en;

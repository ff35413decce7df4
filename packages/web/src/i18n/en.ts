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
  // Custom agents (Agents page, editor, the agent chip of a chat).
  "agents.title": "Agents",
  "agents.intro":
    "A custom agent has its own soul (persona and standing instructions), model, tools and skills, and its own memory. Start a chat with one to use it.",
  "agents.new": "New agent",
  "agents.newTitle": "New agent",
  "agents.editTitle": "Edit {name}",
  "agents.empty": "No custom agents yet.",
  "agents.noDescription": "No description",
  "agents.chat": "Chat",
  "agents.edit": "Edit {name}",
  "agents.delete": "Delete {name}",
  "agents.confirmDelete": "Delete with its memory",
  "agents.inUse": "in use",
  "agents.useDefault": "Use the default agent",
  "agents.name": "Name",
  "agents.nameRule": 'Letters, digits and "-" only, e.g. research-bot.',
  "agents.description": "Description",
  "agents.soul": "Soul",
  "agents.soulHint": "Who the agent is and how it works, added to its system prompt (SOUL.md).",
  "agents.model": "Model",
  "agents.modelDefault": "The default model",
  "agents.limitTools": "Limit its tools to these groups",
  "agents.skills": "Skills",
  "agents.skillsHint": "Comma-separated skill names; leave empty for every enabled skill.",
  "agents.save": "Save",
  "agents.cancel": "Cancel",
  "agents.chip": "Agent: {name}",
  "agents.chipClear": "Use the default agent",
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

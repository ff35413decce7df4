/** Chinese (Simplified) strings: the same keys as `en.ts`, which the type checks. */
import type { MessageKey } from "./en";

export const zh: Record<MessageKey, string> = {
  "common.loading": "加载中…",
  "settings.language": "语言",
  "settings.language.browser": "跟随浏览器",
  "settings.language.en": "English",
  "settings.language.zh": "中文",
  // Answer actions (suggestions, feedback, export).
  "answer.thumbsUp": "回答很好",
  "answer.thumbsDown": "回答不好",
  "answer.thanks": "感谢您的反馈",
  "answer.commentPlaceholder": "补充说明（可选）",
  "answer.commentSend": "保存评论",
  "answer.export": "导出",
  "answer.exportMarkdown": "Markdown (.md)",
  "answer.exportJson": "JSON (.json)",
  "answer.suggestions": "推荐的追问",
};

/** Chinese (Simplified) strings: the same keys as `en.ts`, which the type checks. */
import type { MessageKey } from "./en";

export const zh: Record<MessageKey, string> = {
  "common.loading": "加载中…",
  "settings.language": "语言",
  "settings.language.browser": "跟随浏览器",
  "settings.language.en": "English",
  "settings.language.zh": "中文",
  // batch_task: the progress bar on the tool card
  "batch.progress": "已完成 {done}/{total}",
  "batch.progressFailed": "已完成 {done}/{total}，失败 {failed}",
  "batch.progressLabel": "批量任务进度",
};

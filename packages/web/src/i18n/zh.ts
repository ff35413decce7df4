/** Chinese (Simplified) strings: the same keys as `en.ts`, which the type checks. */
import type { MessageKey } from "./en";

export const zh: Record<MessageKey, string> = {
  "common.loading": "加载中…",
  "settings.language": "语言",
  "settings.language.browser": "跟随浏览器",
  "settings.language.en": "English",
  "settings.language.zh": "中文",
  // Verified delegation (subagent cards: receipts, flags, acceptance criteria, queue)
  "subagents.receipts": "{count} 条工具回执",
  "subagents.flagged": "{count} 处存疑",
  "subagents.flagsNote": "运行时发现此报告中有部分内容没有任何工具回执支持；请先核实再使用。",
  "subagents.flag.unknownCitation": "引用了 {id}，但没有任何工具调用产生该回执",
  "subagents.flag.unbackedClaim": "声称 {claim}，但没有回执证明",
  "subagents.criterion.met": "已满足",
  "subagents.criterion.unmet": "未满足",
  "subagents.criterion.unverified": "未验证",
  "subagents.queued": "正在等待子代理名额（第 {position} 位）",
};

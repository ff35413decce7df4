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
  // Custom agents (Agents page, editor, the agent chip of a chat).
  "agents.title": "智能体",
  "agents.intro":
    "自定义智能体有自己的灵魂（人设与长期指令）、模型、工具和技能，以及独立的记忆。与它开始对话即可使用。",
  "agents.new": "新建智能体",
  "agents.newTitle": "新建智能体",
  "agents.editTitle": "编辑 {name}",
  "agents.empty": "还没有自定义智能体。",
  "agents.noDescription": "暂无描述",
  "agents.chat": "对话",
  "agents.edit": "编辑 {name}",
  "agents.delete": "删除 {name}",
  "agents.confirmDelete": "连同记忆一起删除",
  "agents.inUse": "使用中",
  "agents.useDefault": "使用默认智能体",
  "agents.name": "名称",
  "agents.nameRule": "只能使用字母、数字和“-”，例如 research-bot。",
  "agents.description": "描述",
  "agents.soul": "灵魂",
  "agents.soulHint": "智能体是谁、如何工作，会加入它的系统提示词（SOUL.md）。",
  "agents.model": "模型",
  "agents.modelDefault": "默认模型",
  "agents.limitTools": "将工具限制为以下分组",
  "agents.skills": "技能",
  "agents.skillsHint": "以逗号分隔的技能名称；留空表示所有已启用的技能。",
  "agents.save": "保存",
  "agents.cancel": "取消",
  "agents.chip": "智能体：{name}",
  "agents.chipClear": "使用默认智能体",
};

/**
 * One chat message: the user's text, or the agent's answer (Markdown), its reasoning collapsed, and
 * its tool calls as cards. Memoized on what it shows (same-message.ts), not on object identity: the SDK
 * hands over new objects for unchanged messages on every `values` event, and earlier messages must not
 * re-render while the last one streams.
 */
import type { Message } from "@langchain/langgraph-sdk";
import { Brain, Paperclip } from "lucide-react";
import { memo } from "react";
import { Subagents } from "../harness/Subagents";
import type { BatchProgress } from "../harness/batches";
import type { SubagentCard } from "../harness/subagents";
import { t, useLocale } from "../i18n";
import { Markdown } from "./Markdown";
import { reasoningOf, shownText, type ToolCallView } from "./messages";
import { sameCards, sameMessage, sameProgress, sameTools } from "./same-message";
import { ToolCard } from "./ToolCard";

/** Props of {@link MessageView}. */
export interface MessageViewProps {
  message: Message;
  tools: ToolCallView[];
  running: boolean;
  /** Subagent cards of this message's `task` calls (the card's id is the tool call's id). */
  subagents?: SubagentCard[];
  /** Progress of this message's `batch_task` calls (by tool call id). */
  batches?: BatchProgress[];
}

/**
 * Counts this message's renders when a benchmark installed `window.__deerflowRenders` (bench/web.ts
 * uses it to check that streaming does not re-render earlier messages); a no-op otherwise.
 */
function countRender(message: Message): void {
  const counts = (globalThis as { __deerflowRenders?: Record<string, number> }).__deerflowRenders;
  if (counts && message.id) counts[message.id] = (counts[message.id] ?? 0) + 1;
}

/** Renders a human or AI message. */
export const MessageView = memo(
  function MessageView({ message, tools, running, subagents = [], batches = [] }: MessageViewProps) {
    useLocale();
    countRender(message);
    const text = shownText(message);
    if (message.type === "human") {
      const files = (
        (message as { additional_kwargs?: { files?: { filename: string; path?: string }[] } }).additional_kwargs
          ?.files ?? []
      ).filter((f) => f?.filename);
      return (
        <div className="msg msg-human" data-testid="msg-human">
          {files.length > 0 && (
            <div className="file-chips">
              {files.map((file) => (
                <span key={file.filename} className="chip" title={file.path}>
                  <Paperclip size={12} aria-hidden /> {file.filename}
                </span>
              ))}
            </div>
          )}
          <div className="bubble">{text}</div>
        </div>
      );
    }
    const reasoning = reasoningOf(message);
    return (
      <div className="msg msg-ai" data-testid="msg-ai">
        {reasoning && (
          <details className="reasoning">
            <summary>
              <Brain size={14} aria-hidden /> {t("chat.reasoning")}
            </summary>
            <div className="reasoning-text">{reasoning}</div>
          </details>
        )}
        {text && <Markdown text={text} streaming={running} />}
        {tools.map((view, index) => (
          <ToolCard
            key={view.call.id ?? index}
            view={view}
            running={running}
            progress={batches.find((progress) => progress.toolCallId === view.call.id)}
          />
        ))}
        <Subagents cards={subagents} />
      </div>
    );
  },
  (before, after) =>
    sameMessage(before.message, after.message) &&
    before.running === after.running &&
    sameTools(before.tools, after.tools) &&
    sameCards(before.subagents, after.subagents) &&
    sameProgress(before.batches, after.batches),
);

/**
 * One chat message: the user's text, or the agent's answer (Markdown), its reasoning collapsed, and
 * its tool calls as cards. Memoized on what it shows (same-message.ts), not on object identity: the SDK
 * hands over new objects for unchanged messages on every `values` event, and earlier messages must not
 * re-render while the last one streams.
 */
import type { Message } from "@langchain/langgraph-sdk";
import { Brain, ChevronLeft, ChevronRight, Paperclip, Pencil } from "lucide-react";
import { memo, useState } from "react";
import { Subagents } from "../harness/Subagents";
import type { BatchProgress } from "../harness/batches";
import type { SubagentCard } from "../harness/subagents";
import { t, useLocale } from "../i18n";
import type { BranchView } from "./branches";
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
  /** Where this message is among its versions (a regenerate or edit made siblings); none without. */
  branch?: BranchView;
  /** Set on the latest question when it can be edited: sends the edited text (an error text on refusal). */
  onEdit?: (messageId: string, text: string) => Promise<string | undefined>;
}

/** "‹ 1/2 ›": steps between the versions of a message. */
function BranchPicker({ branch }: { branch: BranchView }) {
  return (
    <div className="branch-picker muted small" data-testid="branch-picker">
      <button
        type="button"
        className="icon-btn"
        aria-label={t("versions.previous")}
        disabled={branch.index === 0}
        onClick={() => branch.go(-1)}
      >
        <ChevronLeft size={14} aria-hidden />
      </button>
      <span title={t("versions.position", { index: branch.index + 1, total: branch.total })}>
        {branch.index + 1}/{branch.total}
      </span>
      <button
        type="button"
        className="icon-btn"
        aria-label={t("versions.next")}
        disabled={branch.index === branch.total - 1}
        onClick={() => branch.go(1)}
      >
        <ChevronRight size={14} aria-hidden />
      </button>
    </div>
  );
}

/** The latest question's inline editor: Save sends the new text, Cancel puts the message back. */
function QuestionEditor({
  text,
  onSave,
  onClose,
}: {
  text: string;
  onSave: (text: string) => Promise<string | undefined>;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(text);
  const [problem, setProblem] = useState<string>();
  const [saving, setSaving] = useState(false);
  return (
    <form
      className="question-editor"
      onSubmit={(event) => {
        event.preventDefault();
        setSaving(true);
        void onSave(draft).then((error) => {
          setSaving(false);
          if (error) setProblem(error);
          else onClose();
        });
      }}
    >
      <textarea aria-label={t("versions.editLabel")} value={draft} onChange={(event) => setDraft(event.target.value)} />
      {problem && (
        <div className="error-text small" role="alert">
          {problem}
        </div>
      )}
      <div className="editor-actions">
        <button type="button" onClick={onClose}>
          {t("versions.cancel")}
        </button>
        <button type="submit" disabled={saving || draft.trim() === "" || draft.trim() === text.trim()}>
          {t("versions.save")}
        </button>
      </div>
    </form>
  );
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
  function MessageView({ message, tools, running, subagents = [], batches = [], branch, onEdit }: MessageViewProps) {
    useLocale();
    const [editing, setEditing] = useState(false);
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
          {editing && onEdit && message.id ? (
            <QuestionEditor
              text={text}
              onSave={(draft) => onEdit(message.id!, draft)}
              onClose={() => setEditing(false)}
            />
          ) : (
            <div className="bubble">{text}</div>
          )}
          {(branch || (onEdit && !editing)) && (
            <div className="msg-tools">
              {branch && <BranchPicker branch={branch} />}
              {onEdit && !editing && (
                <button type="button" className="icon-btn" onClick={() => setEditing(true)}>
                  <Pencil size={12} aria-hidden /> {t("versions.edit")}
                </button>
              )}
            </div>
          )}
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
        {branch && <BranchPicker branch={branch} />}
      </div>
    );
  },
  (before, after) =>
    sameMessage(before.message, after.message) &&
    before.running === after.running &&
    sameTools(before.tools, after.tools) &&
    sameCards(before.subagents, after.subagents) &&
    sameProgress(before.batches, after.batches) &&
    before.branch?.id === after.branch?.id &&
    before.onEdit === after.onEdit,
);

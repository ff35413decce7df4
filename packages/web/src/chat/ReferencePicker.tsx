/**
 * Earlier conversations to reference with the next message (at most three): a button opens the
 * user's other threads, picked ones show as chips. The agent reads them with `read_conversation`.
 */
import { MessagesSquare, X } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";

/** Most conversations one message can reference (the harness reads at most three per message). */
export const MAX_REFERENCES = 3;

/** A conversation the message references. */
export interface ConversationRef {
  thread_id: string;
  title?: string;
}

/** Props of {@link ReferencePicker}. */
export interface ReferencePickerProps {
  /** The conversations that can be referenced (the current one excluded). */
  conversations: readonly { id: string; title: string }[];
  picked: readonly ConversationRef[];
  onChange: (picked: ConversationRef[]) => void;
}

/** The button and the list. */
export function ReferencePicker({ conversations, picked, onChange }: ReferencePickerProps) {
  useLocale();
  const [open, setOpen] = useState(false);
  const full = picked.length >= MAX_REFERENCES;
  const isPicked = (id: string) => picked.some((ref) => ref.thread_id === id);
  return (
    <>
      <button
        type="button"
        className="icon-btn attach"
        aria-label={t("chat.referenceConversation")}
        aria-expanded={open}
        title={t("chat.referenceTitle", { max: MAX_REFERENCES })}
        onClick={() => setOpen(!open)}
      >
        <MessagesSquare size={16} />
      </button>
      {open && (
        <ul className="reference-list" aria-label={t("chat.referenceList")}>
          {conversations.length === 0 && <li className="muted">{t("chat.noOtherConversations")}</li>}
          {conversations.map((conversation) => (
            <li key={conversation.id}>
              <button
                type="button"
                disabled={isPicked(conversation.id) || full}
                onClick={() => {
                  onChange([...picked, { thread_id: conversation.id, title: conversation.title }]);
                  if (picked.length + 1 >= MAX_REFERENCES) setOpen(false);
                }}
              >
                {conversation.title}
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The picked conversations as chips, each removable. */
export function ReferenceChips({ picked, onChange }: Omit<ReferencePickerProps, "conversations">) {
  useLocale();
  if (picked.length === 0) return null;
  return (
    <div className="file-chips">
      {picked.map((ref) => (
        <span key={ref.thread_id} className="chip file-chip" data-testid="reference-chip">
          {ref.title ?? ref.thread_id}
          <button
            type="button"
            className="icon-btn"
            aria-label={t("chat.removeReference", { title: ref.title ?? ref.thread_id })}
            onClick={() => onChange(picked.filter((other) => other.thread_id !== ref.thread_id))}
          >
            <X size={12} />
          </button>
        </span>
      ))}
    </div>
  );
}

/**
 * The message box: Enter sends, Shift+Enter starts a new line, and while a run is going the send
 * button becomes Stop. Files can be attached, pasted or dropped; they show as chips, and a file the
 * server refused keeps its chip with the reason. The draft text is kept in sessionStorage per thread,
 * so a reload or a server outage loses nothing typed. A `/goal` line sets, shows or clears the thread's
 * goal instead of being sent, and up to three earlier conversations can be referenced with a message.
 */
import { ArrowUp, Paperclip, Square, X } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { t, useLocale } from "../i18n";
import { type GoalCommand, goalCommandOf } from "./goal";
import { type ConversationRef, ReferenceChips, ReferencePicker } from "./ReferencePicker";

/**
 * What sending reports back: nothing (sent), or why nothing was sent: the reasons files were refused,
 * or the server's reason for refusing the run (a quota's 429, say). Either way the text stays.
 */
export type SendResult = void | { refused?: Record<string, string>; error?: string };

/** Props of {@link Composer}. */
export interface ComposerProps {
  draftKey: string;
  running: boolean;
  disabled?: boolean;
  /** `refs`: the earlier conversations the user picked to reference (only passed when there are some). */
  onSend: (text: string, files: File[], refs?: ConversationRef[]) => SendResult | Promise<SendResult>;
  onStop: () => void;
  /** Runs a `/goal` line instead of sending it; resolves with the error to show, if any. Absent: sent as text. */
  onGoal?: (command: GoalCommand) => Promise<string | undefined>;
  /** The user's other conversations, which the message can reference. Absent: no reference button. */
  conversations?: readonly { id: string; title: string }[];
}

/** Renders the composer. */
export function Composer({ draftKey, running, disabled, onSend, onStop, onGoal, conversations }: ComposerProps) {
  const storageKey = `deerflow.draft.${draftKey}`;
  useLocale();
  const [text, setText] = useState(() => sessionStorage.getItem(storageKey) ?? "");
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [refused, setRefused] = useState<Record<string, string>>({});
  const [refs, setRefs] = useState<ConversationRef[]>([]);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string>();
  const sendingRef = useRef(false);
  const addFiles = (list: FileList | null | undefined) => {
    const added = [...(list ?? [])];
    if (added.length === 0) return;
    setFiles((current) => [...current.filter((f) => !added.some((a) => a.name === f.name)), ...added]);
    setRefused((current) =>
      Object.fromEntries(Object.entries(current).filter(([name]) => !added.some((a) => a.name === name))),
    );
  };
  // A new chat gets its thread's key while its first message is being sent; that text moves along.
  useEffect(() => {
    setText((current) => sessionStorage.getItem(storageKey) ?? (sendingRef.current ? current : ""));
  }, [storageKey]);
  useEffect(() => {
    if (text) sessionStorage.setItem(storageKey, text);
    else sessionStorage.removeItem(storageKey);
  }, [storageKey, text]);

  const send = async () => {
    const trimmed = text.trim();
    if (!trimmed || running || disabled || sending) return;
    setSending(true);
    sendingRef.current = true;
    setError(undefined);
    try {
      const goal = onGoal && goalCommandOf(trimmed);
      if (goal) {
        const failed = await onGoal(goal);
        if (failed) setError(failed);
        else setText("");
        return;
      }
      const result = await (refs.length > 0 ? onSend(trimmed, files, refs) : onSend(trimmed, files));
      if (result && Object.keys(result.refused ?? {}).length > 0) {
        setRefused(result.refused ?? {});
        return;
      }
      if (result?.error) {
        setError(result.error);
        return;
      }
      setText("");
      setFiles([]);
      setRefused({});
      setRefs([]);
    } finally {
      setSending(false);
      sendingRef.current = false;
    }
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send();
    }
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
      onDragOver={(event) => event.preventDefault()}
      onDrop={(event) => {
        event.preventDefault();
        addFiles(event.dataTransfer?.files);
      }}
    >
      {error && (
        <p className="composer-error error-text" role="alert" data-testid="composer-error">
          {error}
        </p>
      )}
      {files.length > 0 && (
        <div className="file-chips">
          {files.map((file) => (
            <span
              key={file.name}
              className={`chip file-chip ${refused[file.name] ? "refused" : ""}`}
              data-testid="file-chip"
              title={refused[file.name] ?? t("chat.fileBytes", { size: file.size })}
            >
              {file.name}
              {refused[file.name] && <span className="chip-reason">{refused[file.name]}</span>}
              <button
                type="button"
                className="icon-btn"
                aria-label={t("chat.removeFile", { name: file.name })}
                onClick={() => setFiles(files.filter((f) => f !== file))}
              >
                <X size={12} />
              </button>
            </span>
          ))}
        </div>
      )}
      <ReferenceChips picked={refs} onChange={setRefs} />
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        aria-label={t("chat.attach")}
        onChange={(event) => (addFiles(event.target.files), (event.target.value = ""))}
      />
      <button
        type="button"
        className="icon-btn attach"
        aria-label={t("chat.attach")}
        title={t("chat.attachTitle")}
        onClick={() => picker.current?.click()}
      >
        <Paperclip size={16} />
      </button>
      {conversations && <ReferencePicker conversations={conversations} picked={refs} onChange={setRefs} />}
      <textarea
        ref={area}
        aria-label={t("chat.message")}
        placeholder={t("chat.placeholder")}
        title={t("chat.enterHint")}
        value={text}
        rows={Math.min(8, Math.max(1, text.split("\n").length))}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        onPaste={(event) => {
          if (event.clipboardData.files.length > 0) {
            event.preventDefault();
            addFiles(event.clipboardData.files);
          }
        }}
      />
      {running ? (
        <button
          type="button"
          className="icon-btn stop"
          aria-label={t("chat.stop")}
          title={t("chat.stopTitle")}
          onClick={onStop}
        >
          <Square size={16} />
        </button>
      ) : (
        <button
          type="submit"
          className="icon-btn send"
          aria-label={t("chat.send")}
          title={t("chat.sendTitle")}
          disabled={!text.trim() || disabled || sending}
        >
          <ArrowUp size={16} />
        </button>
      )}
    </form>
  );
}

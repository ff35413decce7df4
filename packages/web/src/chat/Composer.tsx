/**
 * The message box: Enter sends, Shift+Enter starts a new line, and while a run is going the send
 * button becomes Stop. The draft is kept in sessionStorage per thread, so a reload or a server outage
 * loses nothing typed.
 */
import { ArrowUp, Square } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

/** Props of {@link Composer}. */
export interface ComposerProps {
  draftKey: string;
  running: boolean;
  disabled?: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

/** Renders the composer. */
export function Composer({ draftKey, running, disabled, onSend, onStop }: ComposerProps) {
  const storageKey = `deerflow.draft.${draftKey}`;
  const [text, setText] = useState(() => sessionStorage.getItem(storageKey) ?? "");
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    setText(sessionStorage.getItem(storageKey) ?? "");
  }, [storageKey]);
  useEffect(() => {
    if (text) sessionStorage.setItem(storageKey, text);
    else sessionStorage.removeItem(storageKey);
  }, [storageKey, text]);

  const send = () => {
    const trimmed = text.trim();
    if (!trimmed || running || disabled) return;
    onSend(trimmed);
    setText("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <textarea
        ref={area}
        aria-label="Message"
        placeholder="Ask DeerFlow to do something…"
        title="Enter sends, Shift+Enter starts a new line"
        value={text}
        rows={Math.min(8, Math.max(1, text.split("\n").length))}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {running ? (
        <button type="button" className="icon-btn stop" aria-label="Stop" title="Stop the run" onClick={onStop}>
          <Square size={16} />
        </button>
      ) : (
        <button type="submit" className="icon-btn send" aria-label="Send" title="Send (Enter)" disabled={!text.trim() || disabled}>
          <ArrowUp size={16} />
        </button>
      )}
    </form>
  );
}

/**
 * The question the agent asked (ask_clarification): its options as buttons and a free-text answer, or a
 * form when it asked for several values ({@link ClarificationForm}).
 */
import { HelpCircle } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";
import type { Clarification as ClarificationData } from "../chat/messages";
import { ClarificationForm } from "./ClarificationForm";

/** Renders the question; choosing an option or typing an answer sends it as the user's reply. */
export function Clarification({ request, onAnswer }: { request: ClarificationData; onAnswer: (text: string) => void }) {
  useLocale();
  const [answer, setAnswer] = useState("");
  if (request.fields)
    return (
      <section className="clarification" data-testid="clarification">
        <div className="clarification-q">
          <HelpCircle size={16} aria-hidden /> {request.question}
        </div>
        <ClarificationForm fields={request.fields} onAnswer={onAnswer} />
      </section>
    );
  return (
    <section className="clarification" data-testid="clarification">
      <div className="clarification-q">
        <HelpCircle size={16} aria-hidden /> {request.question}
      </div>
      {request.options.length > 0 && (
        <div className="options">
          {request.options.map((option) => (
            <button key={option} type="button" className="option" onClick={() => onAnswer(option)}>
              {option}
            </button>
          ))}
        </div>
      )}
      <form
        className="clarification-answer"
        onSubmit={(event) => {
          event.preventDefault();
          if (answer.trim()) onAnswer(answer.trim());
        }}
      >
        <input
          aria-label={t("clarification.yourAnswer")}
          placeholder={request.options.length > 0 ? t("clarification.otherAnswer") : t("clarification.yourAnswer")}
          value={answer}
          onChange={(event) => setAnswer(event.target.value)}
        />
        <button type="submit" disabled={!answer.trim()}>
          {t("clarification.answer")}
        </button>
      </form>
    </section>
  );
}

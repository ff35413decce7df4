/** The question the agent asked (ask_clarification), its options as buttons, and a free-text answer. */
import { HelpCircle } from "lucide-react";
import type { Clarification as ClarificationData } from "../chat/messages";

/** Renders the question; choosing an option sends it as the user's answer. */
export function Clarification({ request, onAnswer }: { request: ClarificationData; onAnswer: (text: string) => void }) {
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
      <div className="muted small">Or type your own answer below.</div>
    </section>
  );
}

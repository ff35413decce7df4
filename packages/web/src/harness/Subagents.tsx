/** Live cards for delegated subagents: description, type, status, latest step, duration and result. */
import { Bot, Check, Loader2, X } from "lucide-react";
import { useEffect, useState } from "react";
import { t, useLocale } from "../i18n";
import type { SubagentCard } from "./subagents";

function seconds(card: SubagentCard, now: number): string {
  if (card.startedAt === undefined) return "";
  return t("subagents.seconds", { seconds: Math.max(0, Math.round(((card.endedAt ?? now) - card.startedAt) / 1000)) });
}

/** Renders the cards; nothing when no subagent ran. */
export function Subagents({ cards }: { cards: SubagentCard[] }) {
  useLocale();
  const [now, setNow] = useState(Date.now());
  const running = cards.some((card) => card.status === "running");
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (cards.length === 0) return null;
  return (
    <section className="subagents" aria-label={t("subagents.title")}>
      {cards.map((card) => (
        <details
          key={card.id}
          className={`subagent subagent-${card.status}`}
          data-testid="subagent-card"
          data-status={card.status}
        >
          <summary>
            <Bot size={14} aria-hidden />
            <span className="subagent-desc">{card.description || t("subagents.default")}</span>
            <span className="muted">{card.subagentType}</span>
            <span className="muted">{seconds(card, now)}</span>
            {card.status === "running" ? (
              <Loader2 size={14} className="spin" aria-label={t("subagents.running")} />
            ) : card.status === "completed" ? (
              <Check size={14} aria-label={t("subagents.completed")} />
            ) : (
              <X size={14} aria-label={t(`subagents.${card.status}`)} />
            )}
          </summary>
          {card.latestStep && <div className="subagent-step">{t("subagents.latest", { step: card.latestStep })}</div>}

          {card.result && <div className="subagent-result">{card.result.slice(0, 2000)}</div>}
          {card.error && <div className="error-text">{card.error}</div>}
        </details>
      ))}
    </section>
  );
}

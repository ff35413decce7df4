/**
 * Live cards for delegated subagents: description, type, status, latest step, duration and result, and
 * the runtime's check of the report (tool receipts, flags, acceptance criteria).
 */
import { AlertTriangle, Bot, Check, Loader2, X } from "lucide-react";
import { useEffect, useState } from "react";
import { t, useLocale } from "../i18n";
import type { SubagentCard } from "./subagents";

/** The receipts count, the flags with their note, and each criterion's status. */
function Verification({ card }: { card: SubagentCard }) {
  if (card.receipts === undefined) return null;
  const flags = card.flags ?? [];
  const criteria = card.criteria ?? [];
  return (
    <div className="subagent-verification" data-testid="subagent-verification">
      <div className="muted">{t("subagents.receipts", { count: card.receipts })}</div>
      {flags.length > 0 && (
        <div className="error-text" data-testid="subagent-flags">
          <AlertTriangle size={12} aria-hidden /> {t("subagents.flagsNote")}
          <ul>
            {flags.map((flag) => (
              <li key={`${flag.kind}:${flag.detail}`}>
                {flag.kind === "unknown_citation"
                  ? t("subagents.flag.unknownCitation", { id: flag.detail })
                  : t("subagents.flag.unbackedClaim", { claim: flag.detail })}
              </li>
            ))}
          </ul>
        </div>
      )}
      {criteria.length > 0 && (
        <ul className="subagent-criteria" data-testid="subagent-criteria">
          {criteria.map((check) => (
            <li key={check.criterion} data-status={check.status}>
              {check.status === "met" ? <Check size={12} aria-hidden /> : <X size={12} aria-hidden />}{" "}
              {t(`subagents.criterion.${check.status}`)}: {check.criterion}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

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
            {(card.flags?.length ?? 0) > 0 && (
              <span className="error-text" data-testid="subagent-flag-badge">
                <AlertTriangle size={12} aria-hidden /> {t("subagents.flagged", { count: card.flags!.length })}
              </span>
            )}
            {card.status === "running" && card.queuePosition !== undefined && (
              <span className="muted">{t("subagents.queued", { position: card.queuePosition })}</span>
            )}
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
          <Verification card={card} />
        </details>
      ))}
    </section>
  );
}

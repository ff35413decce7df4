/** The thread's goal over the messages, with a button that clears it. */
import { Target, X } from "lucide-react";
import { t, useLocale } from "../i18n";
import type { Goal } from "./goal";

/** Props of {@link GoalBanner}. */
export interface GoalBannerProps {
  goal: Goal | null | undefined;
  onClear: () => void;
}

/** Renders the goal, or nothing when the thread has none. */
export function GoalBanner({ goal, onClear }: GoalBannerProps) {
  useLocale();
  if (!goal?.objective) return null;
  return (
    <div className="goal-banner" data-testid="goal" title={t("chat.goalTitle")}>
      <Target size={14} aria-hidden /> <span className="goal-label">{t("chat.goal")}</span>{" "}
      <span>{goal.objective}</span>
      <button type="button" className="icon-btn" aria-label={t("chat.clearGoal")} onClick={onClear}>
        <X size={12} />
      </button>
    </div>
  );
}

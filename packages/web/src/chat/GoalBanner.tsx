/** The thread's goal over the messages, with a button that clears it. */
import { Target, X } from "lucide-react";
import type { Goal } from "./goal";

/** Props of {@link GoalBanner}. */
export interface GoalBannerProps {
  goal: Goal | null | undefined;
  onClear: () => void;
}

/** Renders the goal, or nothing when the thread has none. */
export function GoalBanner({ goal, onClear }: GoalBannerProps) {
  if (!goal?.objective) return null;
  return (
    <div className="goal-banner" data-testid="goal" title="The goal of this conversation (/goal clear removes it)">
      <Target size={14} aria-hidden /> <span className="goal-label">Goal:</span> <span>{goal.objective}</span>
      <button type="button" className="icon-btn" aria-label="Clear the goal" onClick={onClear}>
        <X size={12} />
      </button>
    </div>
  );
}

/**
 * Tool calls waiting for the user's approval (`tool_policies: approval` pauses the run on an interrupt
 * per call). Each shows the tool and its arguments with Approve and Deny (and an optional reason). When
 * every waiting call is decided, the run resumes with one decision, or with a map of interrupt id to
 * decision when several calls wait.
 */
import { ShieldQuestionMark } from "lucide-react";
import { useState } from "react";
import { t, useLocale } from "../i18n";

/** The interrupt value of a call waiting for approval (the harness's `ApprovalRequest`). */
export interface ApprovalRequest {
  kind: "tool_approval";
  tool_name: string;
  tool_call_id: string;
  args: Record<string, unknown>;
}

/** What the run resumes with for one call. */
export interface ApprovalDecision {
  approved: boolean;
  reason?: string;
}

/** A waiting call and the id of its interrupt. */
export interface PendingApproval {
  interruptId: string;
  request: ApprovalRequest;
}

/** The approval requests among a thread's pending interrupts (others are not ours to answer). */
export function pendingApprovals(interrupts: readonly { id?: string; value?: unknown }[]): PendingApproval[] {
  return interrupts.flatMap((entry) => {
    const value = entry.value as Partial<ApprovalRequest> | undefined;
    return entry.id && value?.kind === "tool_approval" && typeof value.tool_name === "string"
      ? [{ interruptId: entry.id, request: { ...value, args: value.args ?? {} } as ApprovalRequest }]
      : [];
  });
}

/** The resume value once every call is decided: the decision itself for one call, else a map by interrupt id. */
export function resumeValue(
  approvals: readonly PendingApproval[],
  decisions: ReadonlyMap<string, ApprovalDecision>,
): ApprovalDecision | Record<string, ApprovalDecision> | undefined {
  if (approvals.length === 0 || approvals.some((approval) => !decisions.has(approval.interruptId))) return undefined;
  if (approvals.length === 1) return decisions.get(approvals[0]!.interruptId);
  return Object.fromEntries(approvals.map((approval) => [approval.interruptId, decisions.get(approval.interruptId)!]));
}

/** Renders the waiting calls; `onResume` gets the resume value when the last one is decided. */
export function Approvals({
  approvals,
  onResume,
}: {
  approvals: readonly PendingApproval[];
  onResume: (value: ApprovalDecision | Record<string, ApprovalDecision>) => void;
}) {
  useLocale();
  const [decisions, setDecisions] = useState<ReadonlyMap<string, ApprovalDecision>>(() => new Map());
  const [reasons, setReasons] = useState<ReadonlyMap<string, string>>(() => new Map());
  const decide = (interruptId: string, approved: boolean) => {
    const reason = reasons.get(interruptId)?.trim();
    const next = new Map(decisions).set(interruptId, !approved && reason ? { approved, reason } : { approved });
    setDecisions(next);
    const value = resumeValue(approvals, next);
    if (value) onResume(value);
  };
  return (
    <section className="approvals" data-testid="approvals">
      {approvals.map(({ interruptId, request }) => {
        const decided = decisions.get(interruptId);
        return (
          <div key={interruptId} className="approval" data-testid="approval">
            <div className="clarification-q">
              <ShieldQuestionMark size={16} aria-hidden /> <ToolQuestion tool={request.tool_name} />
            </div>
            <pre className="approval-args">{JSON.stringify(request.args, null, 2)}</pre>
            {decided ? (
              <div className="muted">{decided.approved ? t("approval.approved") : t("approval.denied")}</div>
            ) : (
              <div className="approval-actions">
                <input
                  aria-label={t("approval.reasonFor", { tool: request.tool_name })}
                  placeholder={t("approval.reasonPlaceholder")}
                  value={reasons.get(interruptId) ?? ""}
                  onChange={(event) => setReasons(new Map(reasons).set(interruptId, event.target.value))}
                />
                <button type="button" className="option" onClick={() => decide(interruptId, true)}>
                  {t("approval.approve")}
                </button>
                <button type="button" onClick={() => decide(interruptId, false)}>
                  {t("approval.deny")}
                </button>
              </div>
            )}
          </div>
        );
      })}
    </section>
  );
}

/** "Run <code>tool</code>?" in the current language, with the tool's name as code wherever the sentence puts it. */
function ToolQuestion({ tool }: { tool: string }) {
  const [before, after = ""] = t("approval.run", { tool: "\u0000" }).split("\u0000");
  return (
    <>
      {before}
      <code>{tool}</code>
      {after}
    </>
  );
}

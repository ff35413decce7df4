/**
 * Subagent progress from the run's `custom` events (`task_started`, `task_running`, `task_completed`,
 * `task_failed`, `task_cancelled`, `task_timed_out`, `task_verified`, `task_queued`; see the harness's
 * subagents/events.ts), folded into one card state per task. Pure, so it is tested without a browser.
 */

/** Something in the subagent's report its tool receipts do not support (the harness's verification). */
export interface VerificationFlag {
  kind: "unknown_citation" | "unbacked_claim";
  detail: string;
}

/** One acceptance criterion of the task and where it stands after the check. */
export interface CriterionCheck {
  criterion: string;
  status: "met" | "unmet" | "unverified";
}

/** What a subagent card shows. */
export interface SubagentCard {
  id: string;
  description: string;
  subagentType: string;
  status: "running" | "completed" | "failed" | "cancelled" | "timed_out";
  latestStep?: string;
  steps: number;
  result?: string;
  error?: string;
  /** When the card's events began (ms); absent for cards rebuilt from saved state. */
  startedAt?: number;
  endedAt?: number;
  /** From `task_verified`: how many tool receipts the subagent's calls produced. */
  receipts?: number;
  flags?: VerificationFlag[];
  criteria?: CriterionCheck[];
  /** From `task_queued`: the task waits for a subagent slot at this position. */
  queuePosition?: number;
}

/** A delegation as saved in `values.delegations` (kept by the harness after the run). */
export interface SavedDelegation {
  id: string;
  description: string;
  subagent_type: string;
  status: string;
  result_brief?: string;
}

const FLAG_KINDS = new Set(["unknown_citation", "unbacked_claim"]);
const CRITERION_STATUSES = new Set(["met", "unmet", "unverified"]);

function flagsOf(value: unknown): VerificationFlag[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((flag) =>
    flag && FLAG_KINDS.has(flag.kind) && typeof flag.detail === "string"
      ? [{ kind: flag.kind, detail: flag.detail } as VerificationFlag]
      : [],
  );
}

function criteriaOf(value: unknown): CriterionCheck[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((check) =>
    check && typeof check.criterion === "string" && CRITERION_STATUSES.has(check.status)
      ? [{ criterion: check.criterion, status: check.status } as CriterionCheck]
      : [],
  );
}

/** Cards for delegations saved in state, for threads opened after their run (no live events). */
export function cardsFromState(
  delegations: readonly SavedDelegation[] | null | undefined,
): Record<string, SubagentCard> {
  const cards: Record<string, SubagentCard> = {};
  for (const d of delegations ?? []) {
    const status: SubagentCard["status"] =
      d.status === "in_progress"
        ? "running"
        : d.status === "completed"
          ? "completed"
          : d.status === "failed"
            ? "failed"
            : d.status === "cancelled"
              ? "cancelled"
              : "timed_out";
    cards[d.id] = {
      id: d.id,
      description: d.description,
      subagentType: d.subagent_type,
      status,
      steps: 0,
      ...(d.result_brief ? { result: d.result_brief } : {}),
    };
  }
  return cards;
}

/**
 * Saved cards with the runtime's check of their reports, read from the `task` results
 * (`additional_kwargs.subagent_verification`), for threads opened after their run.
 */
export function withSavedVerification(
  cards: Record<string, SubagentCard>,
  messages: readonly unknown[] | null | undefined,
): Record<string, SubagentCard> {
  let next = cards;
  for (const message of messages ?? []) {
    const m = message as {
      type?: string;
      name?: string;
      tool_call_id?: string;
      additional_kwargs?: Record<string, unknown>;
    };
    const check = m?.additional_kwargs?.subagent_verification as Record<string, unknown> | undefined;
    const card = m?.type === "tool" && m.name === "task" && m.tool_call_id ? next[m.tool_call_id] : undefined;
    if (!card || !check || typeof check !== "object") continue;
    next = {
      ...next,
      [card.id]: {
        ...card,
        receipts: typeof check.receipts === "number" ? check.receipts : 0,
        flags: flagsOf(check.flags),
        criteria: criteriaOf(check.criteria),
      },
    };
  }
  return next;
}

interface StepMessage {
  content?: string;
  text?: string;
  name?: string;
  tool_calls?: { name: string; args?: string }[];
}

function describeStep(message: StepMessage | undefined): string | undefined {
  if (!message) return undefined;
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) return calls.map((call) => `${call.name}(${(call.args ?? "").slice(0, 60)})`).join(", ");
  const text = message.text ?? message.content ?? "";
  return message.name ? `${message.name}: ${text.slice(0, 120)}` : text.slice(0, 160) || undefined;
}

/** Applies one custom event to the cards; events of other kinds return the same map. */
export function applyTaskEvent(
  cards: Record<string, SubagentCard>,
  event: unknown,
  now = Date.now(),
): Record<string, SubagentCard> {
  const e = event as { type?: string; task_id?: string } & Record<string, unknown>;
  if (
    !e ||
    typeof e !== "object" ||
    typeof e.type !== "string" ||
    !e.type.startsWith("task_") ||
    typeof e.task_id !== "string"
  )
    return cards;
  const id = e.task_id;
  const card: SubagentCard = cards[id] ?? {
    id,
    description: "",
    subagentType: "",
    status: "running",
    steps: 0,
    startedAt: now,
  };
  let next: SubagentCard = card;
  switch (e.type) {
    case "task_started":
      next = {
        ...card,
        description: String(e.description ?? ""),
        subagentType: String(e.subagent_type ?? ""),
        status: "running",
        queuePosition: undefined,
      };
      break;
    case "task_queued":
      next = { ...card, queuePosition: typeof e.position === "number" ? e.position : undefined };
      break;
    case "task_verified":
      next = {
        ...card,
        receipts: typeof e.receipts === "number" ? e.receipts : 0,
        flags: flagsOf(e.flags),
        criteria: criteriaOf(e.criteria),
      };
      break;
    case "task_running":
      next = { ...card, steps: card.steps + 1, latestStep: describeStep(e.message as StepMessage) ?? card.latestStep };
      break;
    case "task_completed":
      next = { ...card, status: "completed", result: String(e.result ?? ""), endedAt: now };
      break;
    case "task_failed":
    case "task_cancelled":
    case "task_timed_out":
      next = {
        ...card,
        status: e.type === "task_failed" ? "failed" : e.type === "task_cancelled" ? "cancelled" : "timed_out",
        error: String(e.error ?? ""),
        endedAt: now,
        queuePosition: undefined,
      };
      break;
    default:
      return cards;
  }
  return { ...cards, [id]: next };
}

/**
 * What `deerflow chat` asks the user between turns when the agent waits on them: tool calls waiting for
 * approval (`tool_policies: approval`), answered `approve? [y/N]` one by one and resumed as a map of
 * interrupt id to decision; and a clarification form (v2), asked field by field and sent as one answer,
 * one `Label: value` line per filled field (what the web app sends too).
 */
import type { ApprovalDecision, ApprovalRequest, ClarificationField } from "@deerflow/harness";

/** A tool call waiting for approval, with the id of its interrupt (the key of its resume value). */
export interface PendingApproval {
  interruptId: string;
  request: ApprovalRequest;
}

/** Reads one line after printing a prompt; `undefined` when input ended. */
export type Ask = (prompt: string) => Promise<string | undefined>;

/** The approval requests among a state's pending interrupts. */
export function pendingApprovals(tasks: readonly { interrupts?: readonly { id?: string; value?: unknown }[] }[]) {
  const approvals: PendingApproval[] = [];
  for (const task of tasks)
    for (const entry of task.interrupts ?? []) {
      const value = entry.value as Partial<ApprovalRequest> | undefined;
      if (entry.id && value?.kind === "tool_approval" && typeof value.tool_name === "string")
        approvals.push({ interruptId: entry.id, request: value as ApprovalRequest });
    }
  return approvals;
}

/** The arguments of a call on one line, cut at `max` characters. */
export function describeArgs(args: Record<string, unknown>, max = 300): string {
  const text = JSON.stringify(args) ?? "{}";
  return text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
}

/**
 * Asks about each call: `y`/`yes` approves, anything else (or end of input) declines. After a decline,
 * an optional reason is asked for and given to the model. Returns the resume value: interrupt id to
 * decision; `undefined` when input ends first, so the run keeps waiting (`chat --thread` asks again).
 */
export async function askApprovals(
  approvals: readonly PendingApproval[],
  ask: Ask,
  say: (line: string) => void,
): Promise<Record<string, ApprovalDecision> | undefined> {
  const decisions: Record<string, ApprovalDecision> = {};
  for (const { interruptId, request } of approvals) {
    say(`approval needed: ${request.tool_name} ${describeArgs(request.args)}`);
    const answer = (await ask("approve? [y/N] "))?.trim().toLowerCase();
    if (answer === undefined) return undefined;
    if (answer === "y" || answer === "yes") {
      decisions[interruptId] = { approved: true };
      continue;
    }
    const reason = ((await ask("reason (optional, Enter to skip)> ")) ?? "").trim();
    decisions[interruptId] = reason ? { approved: false, reason } : { approved: false };
  }
  return decisions;
}

const YES = new Set(["y", "yes", "true", "1"]);

/**
 * Asks a form field by field and returns the answer to send. A select takes an option's number or
 * text; a multi-select several, separated by commas; a checkbox y/N. A required field is asked again
 * until it has a valid value; an optional one may be left empty. Returns `undefined` when input ends.
 */
export async function askForm(
  fields: readonly ClarificationField[],
  ask: Ask,
  say: (line: string) => void,
): Promise<string | undefined> {
  const lines: string[] = [];
  for (const field of fields) {
    const options = field.options ?? [];
    if (options.length > 0) say(options.map((option, index) => `  ${index + 1}. ${option.label}`).join("\n"));
    const hint =
      field.type === "checkbox"
        ? " [y/N]"
        : field.type === "multi_select"
          ? " (numbers or names, comma-separated)"
          : field.placeholder
            ? ` (${field.placeholder})`
            : "";
    for (;;) {
      const raw = await ask(`${field.label}${field.required ? " (required)" : ""}${hint}> `);
      if (raw === undefined) return undefined;
      const value = readField(field, raw.trim());
      if (value === null) {
        say(
          `  "${raw.trim()}" is not one of the options: type a number from 1 to ${options.length} or an option's name.`,
        );
        continue;
      }
      const empty = value === "" || (field.type === "checkbox" && value === "no");
      if (field.required && empty) {
        say(field.type === "checkbox" ? "  This one must be ticked (y) to go on." : "  This field is required.");
        continue;
      }
      if (value !== "") lines.push(`${field.label}: ${value}`);
      break;
    }
  }
  return lines.length > 0 ? lines.join("\n") : "(no values given)";
}

/** The value of one typed answer, or null when it names no option of a select. */
function readField(field: ClarificationField, text: string): string | null {
  if (field.type === "checkbox") return YES.has(text.toLowerCase()) ? "yes" : "no";
  const options = field.options ?? [];
  if (options.length === 0 || text === "") return text;
  const pick = (part: string) => {
    const index = Number(part);
    if (Number.isInteger(index) && index >= 1 && index <= options.length) return options[index - 1]!.value;
    return options.find((option) => option.label.toLowerCase() === part.toLowerCase())?.value ?? null;
  };
  if (field.type !== "multi_select") return pick(text);
  const picked = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map(pick);
  return picked.includes(null) ? null : picked.join(", ");
}

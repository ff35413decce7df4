/**
 * Shows a run's progress on stderr: each model turn's note, each tool call with its short arguments,
 * the first line of each tool result, todo list changes and subagent events, with a spinner while the
 * model is thinking when stderr is a terminal. stdout is left for the answer, so `deerflow run` pipes.
 */
import {
  type HarnessStreamEvent,
  type SubagentStepSummary,
  TaskEvent,
  type TodoItem,
  type TodoStatus,
} from "@deerflow/harness";
import type { BaseMessage } from "@langchain/core/messages";
import { terminalSafe } from "./terminal-text.js";

const MAX_ARG = 60;

/** What else draws on the terminal: the streamed answer (see `AnswerPrinter`). */
export interface TerminalSharer {
  /** Takes its text off the screen before a progress line is written. */
  hide(): void;
  /** True while its text is on the screen: no spinner over it. */
  readonly holdsScreen: boolean;
}

/** Renders stream chunks (`updates` and `custom` modes) as progress lines. */
export class ProgressRenderer {
  private readonly seenMessages = new Set<string>();
  private sharer: TerminalSharer | undefined;
  private readonly seenCalls = new Set<string>();
  private spinner: NodeJS.Timeout | undefined;
  private spinnerFrame = 0;
  private lastTodos = "";

  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly quiet = false,
  ) {}

  /** Call once per stream chunk. */
  onChunk(mode: string, data: unknown): void {
    this.stopSpinner();
    if (mode === "custom") this.onCustom(data);
    if (mode === "updates") {
      for (const update of Object.values(data as Record<string, Record<string, unknown> | null>)) {
        if (!update) continue;
        const messages = update.messages;
        if (Array.isArray(messages)) for (const message of messages) this.onMessage(message as BaseMessage);
        if (Array.isArray(update.todos)) this.onTodos(update.todos as TodoItem[]);
      }
    }
    this.startSpinner();
  }

  /** Marks already-saved messages as seen, so continuing a thread does not replay them. */
  markSeen(messages: readonly BaseMessage[]): void {
    for (const message of messages) {
      if (message.id) this.seenMessages.add(message.id);
      for (const call of (message as { tool_calls?: { id?: string }[] }).tool_calls ?? [])
        if (call.id) this.seenCalls.add(call.id);
    }
  }

  /** Shares the terminal with the answer of the current turn (stdout and stderr are usually one screen). */
  shareTerminal(sharer: TerminalSharer | undefined): void {
    this.sharer = sharer;
  }

  startSpinner(): void {
    if (this.quiet || !this.out.isTTY || this.spinner || this.sharer?.holdsScreen) return;
    const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    this.spinner = setInterval(() => {
      this.out.write(`\r${frames[this.spinnerFrame++ % frames.length]} working…`);
    }, 100);
  }

  stopSpinner(): void {
    if (!this.spinner) return;
    clearInterval(this.spinner);
    this.spinner = undefined;
    this.out.write("\r\x1b[K");
  }

  line(text: string): void {
    if (this.quiet) return;
    this.stopSpinner();
    this.sharer?.hide();
    this.out.write(`${terminalSafe(text)}\n`);
  }

  private onMessage(message: BaseMessage): void {
    const type = message.getType();
    if (type === "ai") {
      const calls =
        (message as { tool_calls?: { id?: string; name: string; args: Record<string, unknown> }[] }).tool_calls ?? [];
      const fresh = calls.filter((call) => !call.id || !this.seenCalls.has(call.id));
      if (message.id && this.seenMessages.has(message.id) && fresh.length === 0) return;
      if (message.id) this.seenMessages.add(message.id);
      const text = firstLine(textOf(message));
      if (calls.length > 0 && text && fresh.length > 0) this.line(`· ${text}`);
      for (const call of fresh) {
        if (call.id) this.seenCalls.add(call.id);
        this.line(`→ ${call.name}(${shortArgs(call.args)})`);
      }
      return;
    }
    if (type === "tool") {
      if (message.id && this.seenMessages.has(message.id)) return;
      if (message.id) this.seenMessages.add(message.id);
      const status = (message as { status?: string }).status;
      const text = firstLine(textOf(message)) || "(no output)";
      this.line(`  ${status === "error" ? "✗" : "←"} ${text}`);
    }
  }

  private onTodos(todos: TodoItem[]): void {
    const key = JSON.stringify(todos);
    if (key === this.lastTodos) return;
    this.lastTodos = key;
    const mark: Record<TodoStatus, string> = { completed: "[x]", in_progress: "[~]", pending: "[ ]" };
    this.line("  todos:");
    for (const todo of todos) this.line(`    ${mark[todo.status] ?? "[?]"} ${todo.content}`);
  }

  private onCustom(data: unknown): void {
    const retry = data as HarnessStreamEvent | null;
    if (retry?.type === "llm_retry") {
      this.line(`  ⟳ model ${retry.model ?? ""}: ${retry.message ?? "retrying"}`);
      return;
    }
    const parsed = TaskEvent.safeParse(data);
    if (!parsed.success) return;
    const event = parsed.data;
    const id = event.task_id.slice(-8);
    const detail =
      event.type === "task_started"
        ? event.description
        : event.type === "task_running"
          ? describeStep(event.message)
          : event.type === "task_completed"
            ? firstLine(event.result)
            : event.type === "task_verified"
              ? describeVerification(event)
              : event.type === "task_queued"
                ? `waiting for a subagent slot (position ${event.position})`
                : firstLine(event.error ?? "");
    this.line(`    ⤷ [${id}] ${event.type.replace("task_", "")}${detail ? `: ${detail}` : ""}`);
  }
}

/** A `task_verified` event in one line: receipts, flags and open criteria. */
function describeVerification(event: Extract<TaskEvent, { type: "task_verified" }>): string {
  const open = event.criteria.filter((check) => check.status !== "met");
  const parts = [`${event.receipts} receipts`];
  for (const flag of event.flags)
    parts.push(flag.kind === "unknown_citation" ? `FLAG cites unknown ${flag.detail}` : `FLAG unbacked ${flag.detail}`);
  if (event.criteria.length > 0)
    parts.push(`criteria ${event.criteria.length - open.length}/${event.criteria.length} met`);
  return firstLine(parts.join("; "));
}

/** One subagent step (a `SubagentStepSummary`): its text, the tools it called, or the tool that answered. */
function describeStep(step: SubagentStepSummary | undefined): string {
  if (!step || typeof step !== "object") return "";
  const text = firstLine(typeof step.text === "string" ? step.text : "");
  if (step.tool_calls?.length)
    return `${text ? `${text} ` : ""}→ ${step.tool_calls.map((call) => call.name).join(", ")}`;
  if (step.role === "tool")
    return `${step.status === "error" ? "✗" : "←"} ${step.name ?? "tool"}${text ? `: ${text}` : ""}`;
  return text;
}

/** The text of a message's content (string or content blocks). */
export function textOf(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  return content.map((block) => ("text" in block && typeof block.text === "string" ? block.text : "")).join("");
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

function shortArgs(args: Record<string, unknown>): string {
  return Object.entries(args ?? {})
    .filter(([key]) => key !== "description")
    .map(([key, value]) => {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      const flat = (text ?? "").replace(/\s+/g, " ");
      return `${key}=${flat.length > MAX_ARG ? `${flat.slice(0, MAX_ARG - 3)}...` : flat}`;
    })
    .join(", ");
}

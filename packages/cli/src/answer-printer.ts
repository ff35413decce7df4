/**
 * Puts the agent's answer on stdout, exactly the final message and nothing else.
 *
 * On a terminal the answer streams: the text of each lead-model message appears as the model writes it.
 * Text a model writes before it decides to call a tool ("Let me check the file first.") is not the
 * answer, so it is taken off the screen again as soon as the tool call shows; the progress on stderr
 * repeats its first line, as it always did. Piped or redirected stdout cannot take text back, so there
 * (and with `--no-stream`) the answer is printed once, whole, when it is final: a file or the next
 * program in a pipe gets the final message and nothing else. Title and memory calls never stream (they
 * are tagged `nostream`), subagents run outside the lead graph's stream, and reasoning is not text.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { writeOut } from "./output.js";
import { textOf } from "./progress.js";
import { screenRows } from "./screen-rows.js";
import { terminalSafe } from "./terminal-text.js";

/** The node of langchain's `createAgent` graph that calls the model. */
const MODEL_NODE = "model_request";

/** What one `messages`-mode chunk says about a lead-model message. */
export interface AnswerPiece {
  /** The message it belongs to (one model call). */
  id: string;
  /** Text in this chunk: a delta, or the whole text when `whole`. */
  text: string;
  whole: boolean;
  /** The message calls a tool: it is not the answer. */
  callsTool: boolean;
}

/**
 * Reads a `messages`-mode chunk (`[message, metadata]`): a piece of the lead model's message, or null
 * for anything else (tool results, nested graphs, other nodes' model calls).
 *
 * @example
 * leadAnswerPiece([new AIMessageChunk({ id: "m1", content: "Hel" }), { langgraph_node: "model_request" }])
 * // { id: "m1", text: "Hel", whole: false, callsTool: false }
 */
export function leadAnswerPiece(data: unknown): AnswerPiece | null {
  const [message, metadata] = data as [BaseMessage | undefined, Record<string, unknown> | undefined];
  if (metadata?.langgraph_node !== MODEL_NODE || typeof message?.getType !== "function") return null;
  if (String(metadata.langgraph_checkpoint_ns ?? "").includes("|")) return null; // a graph inside a node
  if (message.getType() !== "ai") return null;
  const calls = message as { tool_call_chunks?: unknown[]; tool_calls?: unknown[]; concat?: unknown };
  return {
    id: message.id ?? "",
    text: textOf(message),
    whole: typeof calls.concat !== "function", // a chunk (a delta) can be concatenated; a whole message cannot
    callsTool: (calls.tool_call_chunks?.length ?? 0) + (calls.tool_calls?.length ?? 0) > 0,
  };
}

/**
 * Whether the answer streams: `--no-stream` not given, and stdout a terminal that understands cursor
 * movement (not `TERM=dumb`).
 */
export function answerStreams(
  flags: { stream: boolean },
  out: { isTTY?: boolean } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): boolean {
  return flags.stream && out.isTTY === true && env.TERM !== "dumb";
}

/** Options of {@link AnswerPrinter}. */
export interface AnswerPrinterOptions {
  /** Stream the answer as it is written (stdout is a terminal and no `--no-stream`). */
  stream: boolean;
  /** Written before the answer (chat's "agent> "); told whether the answer is a clarification question. */
  prefix?: (clarification: boolean) => string;
  /** Terminal width in cells. Default: stdout's. */
  columns?: () => number;
  /** Default: stdout through `writeOut`. */
  write?: (text: string) => void;
  /** Called before anything is written (the progress spinner must stop first: it shares the line). */
  beforeWrite?: () => void;
}

/** Prints one turn's answer (see the module comment). */
export class AnswerPrinter {
  /** The newest lead-model message; `dropped` once it called a tool. */
  private draft: { id: string; text: string; dropped: boolean } | undefined;
  /** What streamed text is on the screen now, as written ("" when none). */
  private shown = "";
  private done = false;
  private doneAt: number | undefined;
  private readonly write: (text: string) => void;
  private readonly columns: () => number;

  constructor(private readonly options: AnswerPrinterOptions) {
    const write = options.write ?? writeOut;
    this.write = (text) => {
      options.beforeWrite?.();
      write(text);
    };
    this.columns = options.columns ?? (() => process.stdout.columns || 80);
  }

  /** Whether the model's tokens are wanted (the `messages` stream mode). */
  get streaming(): boolean {
    return this.options.stream;
  }

  /** The final answer was printed. */
  get answered(): boolean {
    return this.done;
  }

  /** When the final answer was printed (epoch ms). */
  get answeredAt(): number | undefined {
    return this.doneAt;
  }

  /** Streamed text is on the screen or the answer is printed: nothing else may draw over it (a spinner). */
  get holdsScreen(): boolean {
    return this.shown !== "" || this.done;
  }

  /** Feeds one `messages`-mode chunk. */
  onModelChunk(data: unknown): void {
    if (!this.options.stream || this.done) return;
    const piece = leadAnswerPiece(data);
    if (!piece) return;
    if (this.draft?.id !== piece.id) {
      this.erase(); // a newer model call (or a retry) replaces what the last one wrote
      this.draft = { id: piece.id, text: "", dropped: false };
    }
    if (piece.callsTool) {
      this.draft.dropped = true;
      this.erase();
    }
    if (this.draft.dropped) return;
    this.draft.text = piece.whole ? piece.text : this.draft.text + piece.text;
    this.show();
  }

  /** Takes streamed text off the screen before another line is written there; the next piece brings it back. */
  hide(): void {
    this.erase();
  }

  /** The turn's final answer: completes the streamed text (or replaces it) and ends the line. Once. */
  final(answer: string, clarification: boolean): void {
    if (this.done) return;
    this.done = true;
    this.doneAt = Date.now();
    const text = this.render(answer, clarification);
    if (this.shown && text.startsWith(this.shown)) this.write(`${text.slice(this.shown.length)}\n`);
    else {
      this.erase();
      this.write(`${text}\n`);
    }
    this.shown = "";
  }

  /** The turn ended without an answer (a failure, Ctrl-C): streamed text stays as written; its line is ended. */
  abandon(): void {
    if (this.shown) this.write("\n");
    this.shown = "";
    this.done = true;
  }

  private render(text: string, clarification: boolean): string {
    return `${this.options.prefix?.(clarification) ?? ""}${terminalSafe(text)}`;
  }

  private show(): void {
    if (!this.draft?.text) return;
    const next = this.render(this.draft.text, false);
    if (this.shown && next.startsWith(this.shown)) this.write(next.slice(this.shown.length));
    else {
      this.erase();
      this.write(next);
    }
    this.shown = next;
  }

  /** Moves to the first row the streamed text took and clears from there down. */
  private erase(): void {
    if (!this.shown) return;
    const up = screenRows(this.shown, this.columns()) - 1;
    this.write(`\r${up > 0 ? `\x1b[${up}A` : ""}\x1b[J`);
    this.shown = "";
  }
}

/**
 * Pure helpers over the messages the server streams (LangChain messages as plain JSON): their text,
 * their reasoning, tool calls paired with their results, and the clarification the agent asked for.
 * Kept free of React so component tests and the views share one reading of the wire format.
 */
import type { Message } from "@langchain/langgraph-sdk";

/** A tool call as the AI message carries it. */
export interface ToolCall {
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

/** A tool call with its result once the ToolMessage arrived. */
export interface ToolCallView {
  call: ToolCall;
  result?: { text: string; error: boolean };
}

/** The visible text of a message's content (string, or the text blocks of a block list). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) =>
      block && typeof block === "object" && (block as { type?: string }).type === "text"
        ? String((block as { text?: unknown }).text ?? "")
        : "",
    )
    .join("");
}

/**
 * What a message shows as its text. For a user's message that is what the user typed: the harness puts
 * a `<current_uploads>` block for the model in front of it and keeps the typed text in
 * `additional_kwargs.original_user_content`.
 */
export function shownText(message: Message): string {
  const original = (message as { additional_kwargs?: { original_user_content?: unknown } }).additional_kwargs
    ?.original_user_content;
  if (message.type === "human" && typeof original === "string") return original;
  return textOf(message.content);
}

/** The model's reasoning, when it sent any (`reasoning_content`, or reasoning/thinking blocks). */
export function reasoningOf(message: Message): string {
  const kwargs = (message as { additional_kwargs?: Record<string, unknown> }).additional_kwargs ?? {};
  if (typeof kwargs.reasoning_content === "string" && kwargs.reasoning_content) return kwargs.reasoning_content;
  if (!Array.isArray(message.content)) return "";
  return (message.content as unknown[])
    .map((block) => {
      const b = block as { type?: string; reasoning?: unknown; thinking?: unknown };
      if (b?.type === "reasoning") return String(b.reasoning ?? "");
      if (b?.type === "thinking") return String(b.thinking ?? "");
      return "";
    })
    .join("");
}

/** Tool calls of an AI message paired with their results from `messages`. */
export function toolCallsOf(message: Message, messages: readonly Message[]): ToolCallView[] {
  if (message.type !== "ai") return [];
  const calls = ((message as { tool_calls?: ToolCall[] }).tool_calls ?? []).filter((call) => call.name);
  return calls.map((call) => {
    const answer = messages.find((m) => m.type === "tool" && (m as { tool_call_id?: string }).tool_call_id === call.id);
    if (!answer) return { call };
    const text = textOf(answer.content);
    const error = (answer as { status?: string }).status === "error" || /^Error\b/.test(text);
    return { call, result: { text, error } };
  });
}

/** One line of a tool call's arguments, e.g. `path: /mnt/user-data/outputs/a.md`, cut to `max` characters. */
export function shortArgs(args: Record<string, unknown>, max = 90): string {
  const preferred = ["description", "path", "command", "query", "url", "filepaths", "subagent_type"];
  const keys = [
    ...preferred.filter((key) => key in args),
    ...Object.keys(args).filter((key) => !preferred.includes(key)),
  ];
  const parts = keys.slice(0, 2).map((key) => {
    const value = args[key];
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    return `${key}: ${shown}`;
  });
  const line = parts.join(", ").replace(/\s+/g, " ");
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** One field of a clarification form (`human_input` version 2), as the harness normalized it. */
export interface FormField {
  name: string;
  label: string;
  type: "text" | "textarea" | "number" | "select" | "multi_select" | "checkbox" | "date";
  required: boolean;
  options?: { id: string; label: string; value: string }[];
  placeholder?: string;
}

/** A clarification question and its options, from the last `ask_clarification` ToolMessage; `fields` for a form. */
export interface Clarification {
  question: string;
  options: string[];
  fields?: FormField[];
}

const FIELD_TYPES = new Set(["text", "textarea", "number", "select", "multi_select", "checkbox", "date"]);

/** The fields of a version 2 form request, or undefined when it is not one (or any field is malformed). */
function formFields(request: { version?: unknown; input_mode?: unknown; fields?: unknown }): FormField[] | undefined {
  if (request.version !== 2 || request.input_mode !== "form" || !Array.isArray(request.fields)) return undefined;
  const fields = request.fields as Partial<FormField>[];
  const valid = fields.every(
    (field) =>
      typeof field?.name === "string" &&
      typeof field.label === "string" &&
      FIELD_TYPES.has(field.type ?? "") &&
      (field.options === undefined || Array.isArray(field.options)),
  );
  return valid && fields.length > 0 ? (fields as FormField[]) : undefined;
}

/** The clarification the run ended on, if the last message asks one. */
export function pendingClarification(messages: readonly Message[]): Clarification | undefined {
  const last = messages[messages.length - 1];
  if (!last || last.type !== "tool" || (last as { name?: string }).name !== "ask_clarification") return undefined;
  const request = ((last as { artifact?: { human_input?: Record<string, unknown> } }).artifact?.human_input ?? {}) as {
    question?: unknown;
    options?: unknown;
    version?: unknown;
    input_mode?: unknown;
    fields?: unknown;
  };
  const question = typeof request.question === "string" ? request.question : textOf(last.content);
  const options = Array.isArray(request.options)
    ? request.options
        .map((option) =>
          typeof option === "string"
            ? option
            : String(
                (option as { label?: unknown; value?: unknown })?.label ?? (option as { value?: unknown })?.value ?? "",
              ),
        )
        .filter(Boolean)
    : [];
  const fields = formFields(request);
  return fields ? { question, options, fields } : { question, options };
}

/** Token usage of the latest AI message that reports it (input + output), for the context meter. */
export function latestTokenUsage(messages: readonly Message[]): number | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const usage = (messages[index] as { usage_metadata?: { input_tokens?: number; output_tokens?: number } })
      .usage_metadata;
    if (usage && typeof usage.input_tokens === "number") return usage.input_tokens + (usage.output_tokens ?? 0);
  }
  return undefined;
}

/** True for messages the chat shows (hidden human turns and tool results are shown elsewhere or not at all). */
export function isShown(message: Message): boolean {
  if (message.type === "tool" || message.type === "system") return false;
  const kwargs = (message as { additional_kwargs?: { hide_from_ui?: boolean } }).additional_kwargs;
  return !kwargs?.hide_from_ui;
}

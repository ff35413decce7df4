/**
 * `ask_clarification`: the model's way to stop and ask the user before guessing.
 *
 * It is a `returnDirect` tool because that is what ends a langchain JS agent run after a tool: a
 * middleware returning `Command({ goto: END })` does not. The clarification middleware (last in the
 * chain) answers the call with the formatted question; if that middleware is absent the tool itself
 * returns the same text, so the run still stops on the question.
 */
import { tool } from "@langchain/core/tools";
import { z } from "zod";

/** Name of the clarification tool. */
export const ASK_CLARIFICATION_TOOL_NAME = "ask_clarification";

/** The kinds of clarification, each shown with its own icon. */
export const CLARIFICATION_TYPES = [
  "missing_info",
  "ambiguous_requirement",
  "approach_choice",
  "risk_confirmation",
  "suggestion",
] as const;

/** One of {@link CLARIFICATION_TYPES}. */
export type ClarificationType = (typeof CLARIFICATION_TYPES)[number];

const ICONS: Record<ClarificationType, string> = {
  missing_info: "❓",
  ambiguous_requirement: "🤔",
  approach_choice: "🔀",
  risk_confirmation: "⚠️",
  suggestion: "💡",
};

/**
 * Models send `options` in many shapes: `null`, a JSON-encoded array, one plain string, or an array with
 * numbers in it. All of them mean a list of choices (or none), so they are coerced rather than refused:
 * `null` → none, `'["a","b"]'` → `["a", "b"]`, `"a"` → `["a"]`, `[1, null]` → `["1"]`.
 */
export function coerceOptions(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return undefined;
    if (text.startsWith("[")) {
      try {
        return coerceOptions(JSON.parse(text));
      } catch {
        // not JSON after all: a plain string that starts with "["
      }
    }
    return [value];
  }
  if (Array.isArray(value)) {
    return value
      .filter((item) => item !== null && item !== undefined)
      .map((item) =>
        typeof item === "string" ? item : typeof item === "object" ? JSON.stringify(item) : String(item),
      );
  }
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  return value;
}

/** Arguments of `ask_clarification`, validated at the tool boundary. */
export const AskClarificationArgs = z.object({
  question: z.string().min(1).describe("The question for the user, specific enough to answer in one reply."),
  clarification_type: z
    .enum(CLARIFICATION_TYPES)
    .describe(
      "missing_info: required information is absent; ambiguous_requirement: the request reads several ways; approach_choice: several valid approaches, the user should pick; risk_confirmation: about to do something destructive or costly; suggestion: you recommend something and want a yes or no.",
    ),
  context: z
    .string()
    .optional()
    .describe("Why you are asking: what you found or what is at stake (one or two sentences)."),
  options: z.array(z.string()).optional().describe("Choices to offer, when the answer is one of a few."),
});
/** Arguments of `ask_clarification`. */
export type AskClarificationArgs = z.infer<typeof AskClarificationArgs>;

/**
 * What the tool accepts: the same, with `options` also allowed as `null`, a string, or an array holding
 * numbers or nulls ({@link coerceOptions} normalises them). Kept free of transforms so it still converts
 * to the JSON schema the model sees.
 */
const AskClarificationToolInput = AskClarificationArgs.extend({
  options: z
    .union([z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])), z.string()])
    .nullable()
    .optional()
    .describe("Choices to offer, when the answer is one of a few: a list of strings."),
});

/** Validates raw `ask_clarification` arguments after coercing `options` (see {@link coerceOptions}). */
export function parseClarificationArgs(value: unknown) {
  const coerced =
    value !== null && typeof value === "object" && "options" in value
      ? { ...value, options: coerceOptions((value as { options?: unknown }).options) }
      : value;
  return AskClarificationArgs.safeParse(coerced);
}

/**
 * The text the user sees: the type's icon, the context, the question and numbered options.
 *
 * @example
 * formatClarification({ question: "Which format?", clarification_type: "approach_choice", options: ["PDF", "HTML"] });
 * // "🔀 Which format?\n\n1. PDF\n2. HTML"
 */
export function formatClarification(args: AskClarificationArgs): string {
  const icon = ICONS[args.clarification_type] ?? ICONS.missing_info;
  const context = args.context?.trim();
  const head = context ? `${icon} ${context}\n\n${args.question.trim()}` : `${icon} ${args.question.trim()}`;
  const options = (args.options ?? []).map((option) => option.trim()).filter((option) => option !== "");
  if (options.length === 0) return head;
  return `${head}\n\n${options.map((option, index) => `${index + 1}. ${option}`).join("\n")}`;
}

/** The `ask_clarification` tool (`returnDirect`: the run ends after it and the user's reply is the next message). */
export const askClarificationTool = tool(
  async (args) => formatClarification(parseClarificationArgs(args).data ?? { ...args, options: undefined }),
  {
    name: ASK_CLARIFICATION_TOOL_NAME,
    description:
      "Ask the user a question and wait for the answer. Use it when required information is missing, the request can be read in several ways, the user should choose between approaches, or before a destructive or costly step. Ask instead of guessing. The run stops after this call and the user's reply arrives as the next message, so call it on its own, after any work that does not depend on the answer.",
    schema: AskClarificationToolInput,
    returnDirect: true,
  },
);

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

/** Arguments of `ask_clarification`, validated at the tool boundary. */
export const AskClarificationArgs = z.object({
  question: z.string().min(1).describe("The question for the user, specific enough to answer in one reply."),
  clarification_type: z
    .enum(CLARIFICATION_TYPES)
    .describe(
      "missing_info: required information is absent; ambiguous_requirement: the request reads several ways; approach_choice: several valid approaches, the user should pick; risk_confirmation: about to do something destructive or costly; suggestion: you recommend something and want a yes or no.",
    ),
  context: z.string().optional().describe("Why you are asking: what you found or what is at stake (one or two sentences)."),
  options: z.array(z.string()).optional().describe("Choices to offer, when the answer is one of a few."),
});
/** Arguments of `ask_clarification`. */
export type AskClarificationArgs = z.infer<typeof AskClarificationArgs>;

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
export const askClarificationTool = tool(async (args) => formatClarification(args), {
  name: ASK_CLARIFICATION_TOOL_NAME,
  description:
    "Ask the user a question and wait for the answer. Use it when required information is missing, the request can be read in several ways, the user should choose between approaches, or before a destructive or costly step. Ask instead of guessing. The run stops after this call and the user's reply arrives as the next message, so call it on its own, after any work that does not depend on the answer.",
  schema: AskClarificationArgs,
  returnDirect: true,
});

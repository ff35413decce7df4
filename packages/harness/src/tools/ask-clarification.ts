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
 * Models send `options` in many shapes: `null`, JSON in a string, one plain string, an array with numbers
 * or nulls in it, or (from a model that writes tool calls as XML) an object of nested `item`/`$text`
 * entries. All of them mean a list of choices (or none), so they are coerced rather than refused:
 * `null` → none, `'["a","b"]'` → `["a", "b"]`, `'"a"'` → `["a"]`, `"a"` → `["a"]`, `[1, null]` →
 * `["1", "null"]`, `{ item: "a</item>", $text: "b" }` → `["a", "b"]`.
 */
export function coerceOptions(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const text = value.trim();
    if (text === "") return undefined;
    const decoded = decodeJson(text);
    if (decoded === NOT_JSON) return [value];
    return typeof decoded === "string" ? [decoded] : coerceOptions(decoded);
  }
  if (Array.isArray(value)) {
    return value.map((item) =>
      typeof item === "string" ? item : item !== null && typeof item === "object" ? JSON.stringify(item) : String(item),
    );
  }
  if (typeof value === "object") return flattenOptionLeaves(value);
  if (typeof value === "number" || typeof value === "boolean") return [String(value)];
  return value;
}

const NOT_JSON = Symbol("not JSON");

function decodeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/** An XML element tag left in a value by a lenient XML-to-object parse (`</item>`, `<option id="1">`). */
const XML_TAG = /<\/?[A-Za-z_][\w:.-]*(?:\s[^<>]*)?\/?>/g;

/** The text, number and boolean leaves of an XML-parsed options object, in document order, tags removed. */
function flattenOptionLeaves(value: object): string[] {
  const leaves: string[] = [];
  const collect = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node !== null && typeof node === "object") Object.values(node).forEach(collect);
    else if (typeof node === "string" || typeof node === "number" || typeof node === "boolean") {
      const text = String(node).replace(XML_TAG, "").trim();
      if (text) leaves.push(text);
    }
  };
  collect(value);
  return leaves;
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

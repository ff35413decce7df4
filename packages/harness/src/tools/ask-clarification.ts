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
import { shownAs } from "./tool-args.js";

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

/** The input types a clarification form field can have. */
export const FORM_FIELD_TYPES = ["text", "textarea", "number", "select", "multi_select", "checkbox", "date"] as const;
/** Field types that choose among `options`. */
const OPTION_FIELD_TYPES = new Set(["select", "multi_select"]);
/** Bounds of a form: past any of them the whole form is dropped and the question is asked in plain text. */
export const FORM_LIMITS = { fields: 16, options: 24, chars: 200 } as const;
/** Names a client keeping answers in a plain object could trip over. */
const RESERVED_FIELD_NAMES = new Set([
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
]);

/** One field of a clarification form, as stored and sent to clients (normalized by {@link normalizeFields}). */
export const ClarificationField = z.object({
  name: z.string().min(1),
  label: z.string().min(1),
  type: z.enum(FORM_FIELD_TYPES),
  required: z.boolean(),
  options: z.array(z.object({ id: z.string(), label: z.string(), value: z.string() })).optional(),
  placeholder: z.string().optional(),
});
/** One field of a clarification form. */
export type ClarificationField = z.infer<typeof ClarificationField>;

/** Arguments of `ask_clarification`, validated at the tool boundary. */
export const AskClarificationArgs = z.object({
  question: z.string().min(1).describe("The question for the user, specific enough to answer in one reply."),
  clarification_type: z
    .enum(CLARIFICATION_TYPES)
    .describe(
      "missing_info: something required is absent; ambiguous_requirement: the request reads several ways; approach_choice: the user should pick an approach; risk_confirmation: a destructive or costly step; suggestion: a yes or no on your proposal.",
    ),
  context: z
    .string()
    .optional()
    .describe("Why you are asking: what you found or what is at stake (one or two sentences)."),
  options: z.array(z.string()).optional().describe("Choices to offer, when the answer is one of a few."),
  fields: z.array(ClarificationField).optional(),
});
/** Arguments of `ask_clarification`. */
export type AskClarificationArgs = z.infer<typeof AskClarificationArgs>;

/** A form field as the model writes it; {@link normalizeFields} makes it a {@link ClarificationField}. */
const FieldInput = z.object({
  name: z.string().describe("Unique key of the answer (letters, digits, _)."),
  label: z.string().optional().describe("What the user sees; default: the name."),
  type: z.enum(FORM_FIELD_TYPES).optional().describe("Default text. select and multi_select need options."),
  required: z.boolean().optional().describe("Default false. On a checkbox: the user must tick it."),
  options: z.array(z.string()).optional().describe("Choices of a select or multi_select field."),
  placeholder: z.string().optional(),
});

/** The JSON schema of one form field as the model is shown it (zod's, without its `$schema` line). */
const { $schema: _dialect, ...FIELD_SHOWN } = z.toJSONSchema(FieldInput);

/**
 * What the tool accepts: the same, with `options` also allowed as `null`, a string, or an array holding
 * numbers or nulls ({@link coerceOptions} normalises them), and `fields` as the model writes them (or as
 * JSON in a string). Kept free of transforms so it still converts to a JSON schema; the model is shown
 * only the list shapes ({@link shownAs}), so the lenient alternatives cost no tokens on every request.
 */
const AskClarificationToolInput = AskClarificationArgs.extend({
  options: shownAs(
    z
      .union([z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])), z.string()])
      .nullable()
      .optional(),
    { type: "array", items: { type: "string" } },
  ).describe("Choices to offer, when the answer is one of a few."),
  fields: shownAs(
    z
      .union([z.array(FieldInput), z.string()])
      .nullable()
      .optional(),
    {
      type: "array",
      items: FIELD_SHOWN,
    },
  ).describe(
    `A small form, to collect several values at once (at most ${FORM_LIMITS.fields} fields; takes precedence over options).`,
  ),
});

/**
 * Normalizes the form fields a model sent: labels default to names, unknown types and option-less
 * selects become `text`, option lists are coerced as {@link coerceOptions} does. All or nothing: a field
 * without a name, a duplicate or reserved name, or any bound of {@link FORM_LIMITS} passed drops the
 * whole form (`[]`), so the user never gets a form silently missing a field; the question is then
 * asked in plain text.
 *
 * @example
 * normalizeFields([{ name: "env", type: "select", options: ["dev", "prod"], required: true }]);
 * // [{ name: "env", label: "env", type: "select", required: true,
 * //    options: [{ id: "env-option-1", label: "dev", value: "dev" }, { id: "env-option-2", label: "prod", value: "prod" }] }]
 */
export function normalizeFields(raw: unknown): ClarificationField[] {
  const list = typeof raw === "string" ? decodeJson(raw) : raw;
  if (!Array.isArray(list) || list.length > FORM_LIMITS.fields) return [];
  const fields: ClarificationField[] = [];
  const seen = new Set<string>();
  const tooLong = (text: string) => text.length > FORM_LIMITS.chars;
  for (const entry of list) {
    if (entry === null || typeof entry !== "object") return [];
    const item = entry as Record<string, unknown>;
    const name = typeof item.name === "string" ? item.name.trim() : "";
    if (!name || tooLong(name) || seen.has(name) || RESERVED_FIELD_NAMES.has(name)) return [];
    seen.add(name);
    const label = typeof item.label === "string" && item.label.trim() ? item.label.trim() : name;
    let type: ClarificationField["type"] = FORM_FIELD_TYPES.find((known) => known === item.type) ?? "text";
    const options = OPTION_FIELD_TYPES.has(type)
      ? ((coerceOptions(item.options) as string[] | undefined) ?? []).map((option) => option.trim()).filter(Boolean)
      : [];
    if (tooLong(label) || options.length > FORM_LIMITS.options || options.some(tooLong)) return [];
    if (OPTION_FIELD_TYPES.has(type) && options.length === 0) type = "text";
    const placeholder = typeof item.placeholder === "string" ? item.placeholder.trim() : "";
    if (tooLong(placeholder)) return [];
    fields.push({
      name,
      label,
      type,
      required: item.required === true || item.required === "true",
      ...(options.length > 0
        ? {
            options: options.map((option, index) => ({
              id: `${name}-option-${index + 1}`,
              label: option,
              value: option,
            })),
          }
        : {}),
      ...(placeholder ? { placeholder } : {}),
    });
  }
  return fields;
}

/** Validates raw `ask_clarification` arguments after coercing `options` and normalizing `fields`. */
export function parseClarificationArgs(value: unknown) {
  if (value === null || typeof value !== "object") return AskClarificationArgs.safeParse(value);
  const { fields: rawFields, ...rest } = value as Record<string, unknown>;
  const coerced: Record<string, unknown> = "options" in rest ? { ...rest, options: coerceOptions(rest.options) } : rest;
  const fields = normalizeFields(rawFields);
  return AskClarificationArgs.safeParse(fields.length > 0 ? { ...coerced, fields } : coerced);
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
  if (args.fields && args.fields.length > 0) return `${head}\n\n${formatFields(args.fields)}`;
  const options = (args.options ?? []).map((option) => option.trim()).filter((option) => option !== "");
  if (options.length === 0) return head;
  return `${head}\n\n${options.map((option, index) => `${index + 1}. ${option}`).join("\n")}`;
}

/** A form as text: one numbered line per field, with "(required)" and its choices, then what to do. */
function formatFields(fields: readonly ClarificationField[]): string {
  const lines = fields.map((field, index) => {
    const required = field.required ? " (required)" : "";
    const choices = field.options ? ` - options: ${field.options.map((option) => option.label).join(" / ")}` : "";
    const many = field.type === "multi_select" ? " (several allowed)" : "";
    return `${index + 1}. ${field.label}${required}${choices}${many}`;
  });
  return `${lines.join("\n")}\n\nPlease reply with a value for each field.`;
}

/** The `ask_clarification` tool (`returnDirect`: the run ends after it and the user's reply is the next message). */
export const askClarificationTool = tool(
  async (args) =>
    formatClarification(parseClarificationArgs(args).data ?? { ...args, options: undefined, fields: undefined }),
  {
    name: ASK_CLARIFICATION_TOOL_NAME,
    description:
      "Ask the user instead of guessing. The run stops after this call and the user's reply arrives as the next message, so call it on its own, after any work that does not depend on the answer.",
    schema: AskClarificationToolInput,
    returnDirect: true,
  },
);

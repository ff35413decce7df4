/**
 * Verified delegation: the lead's runtime checks a subagent's final report against the receipts its
 * tool calls were stamped with (middleware/tool-receipts.ts), so the lead and the user learn when a
 * report cites work that never ran.
 *
 * Three checks, all on plain text and deliberately simple (docs/subagents.md lists them):
 * - citations: every `[r3]` / `[r3, r5]` in the report must name one of the subagent's receipts;
 * - claims: a sentence that claims work of a kind (files written, commands run, tests passed, pages
 *   fetched) and is not negated needs at least one receipt of a tool that can do that work;
 * - acceptance criteria: the report's `C1: met [r2] …` / `C2: unmet …` lines give each criterion a status;
 *   `met` without a valid citation, or no answer at all, is `unverified`.
 */
import { z } from "zod";
import { CriterionStatus, type ToolReceipt } from "../state/shapes.js";

/** Most criteria one `task` call may carry, and the longest one. */
export const MAX_ACCEPTANCE_CRITERIA = 10;
export const MAX_CRITERION_CHARS = 300;
/** Longest piece of report text a flag or a criterion note quotes. */
const QUOTE_MAX_CHARS = 160;

/** Something in a report the receipts do not support. */
export const VerificationFlag = z.object({
  kind: z.enum(["unknown_citation", "unbacked_claim"]),
  /** `unknown_citation`: the cited id; `unbacked_claim`: the claim's kind and sentence. */
  detail: z.string(),
});
export type VerificationFlag = z.infer<typeof VerificationFlag>;

/** One criterion of the task and what the report said about it. */
export const CriterionCheck = z.object({
  criterion: z.string(),
  status: CriterionStatus,
  citations: z.array(z.string()),
  note: z.string().optional(),
});
export type CriterionCheck = z.infer<typeof CriterionCheck>;

/** What the lead's runtime concluded about one report (`additional_kwargs.subagent_verification`). */
export const Verification = z.object({
  /** How many receipts the subagent's tool calls produced. */
  receipts: z.number(),
  /** The receipt ids the report cites, in first-cited order. */
  citations: z.array(z.string()),
  flags: z.array(VerificationFlag),
  criteria: z.array(CriterionCheck),
});
export type Verification = z.infer<typeof Verification>;

/** A kind of work a report can claim, the words that claim it, and the tools whose receipts back it. */
interface ClaimRule {
  kind: string;
  pattern: RegExp;
  /** Tools that can do the work; `null`: any tool. */
  tools: ReadonlySet<string>;
  /** Whether a failed call backs it (a command that failed still ran). */
  errorsCount: boolean;
}

const FILE_TOOLS = new Set(["write_file", "str_replace", "bash"]);
const SHELL = new Set(["bash"]);
const WEB_TOOLS = new Set(["web_search", "web_fetch", "image_search"]);

/** The claim rules, in the order a sentence is tried (first match wins). */
export const CLAIM_RULES: readonly ClaimRule[] = [
  {
    kind: "tests passed",
    pattern: /\b(tests?|specs?|test suite)\b[^.!?\n]{0,40}\b(pass(?:ed|es|ing)?|succeed(?:ed|s)?|green)\b/i,
    tools: SHELL,
    errorsCount: false,
  },
  {
    kind: "files written",
    pattern:
      /\b(wrote|written|created|saved|updated|modified|edited|overwrote|patched)\b[^.!?\n]{0,80}?(\bfiles?\b|\b[\w-]+\.[a-z0-9]{1,6}\b)|(\bfiles?\b|\b[\w-]+\.[a-z0-9]{1,6}\b)[^.!?\n]{0,40}\b(was|were|has been|have been)\s+(written|created|saved|updated|modified|edited)\b/i,
    tools: FILE_TOOLS,
    errorsCount: false,
  },
  {
    kind: "commands run",
    pattern: /\b(ran|executed|have run|has run|was run|were run|invoked)\b/i,
    tools: SHELL,
    errorsCount: true,
  },
  {
    kind: "pages fetched",
    pattern: /\b(fetched|downloaded|searched the web|browsed|looked up online)\b/i,
    tools: WEB_TOOLS,
    errorsCount: false,
  },
];

/** Words that turn a sentence into the absence of a claim ("did not run", "could not write"). */
const NEGATION = /\b(not|no|never|unable|cannot|without|failed to)\b|n't\b/i;
const CITATION = /\[\s*(r\d+(?:\s*,\s*r\d+)*)\s*\]/gi;
const ANSWER_LINE =
  /^\s*(?:[-*]\s*)?\**\s*C(\d+)\s*\**\s*[:.)\-–]?\s*\**\s*(met|unmet|not met|partially met|partly met)\b\**(.*)$/i;

const quote = (text: string) => {
  const flat = text.split(/\s+/).filter(Boolean).join(" ");
  return flat.length <= QUOTE_MAX_CHARS ? flat : `${flat.slice(0, QUOTE_MAX_CHARS - 1)}…`;
};

/** The receipt ids cited in `text`, in first-cited order, lower case. */
export function citationsIn(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(CITATION))
    for (const id of match[1]!.split(",")) {
      const clean = id.trim().toLowerCase();
      if (!ids.includes(clean)) ids.push(clean);
    }
  return ids;
}

/** Splits a report into sentences (and lines), the unit claims are read in. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z`*\-#])/)
    .map((part) => part.trim())
    .filter(Boolean);
}

/** The claims of work in `report` that none of `receipts` backs. */
export function unbackedClaims(report: string, receipts: readonly ToolReceipt[]): VerificationFlag[] {
  const flags: VerificationFlag[] = [];
  const flaggedKinds = new Set<string>();
  for (const sentence of sentences(report)) {
    if (ANSWER_LINE.test(sentence) && /\bunmet|not met\b/i.test(sentence)) continue;
    if (NEGATION.test(sentence)) continue;
    const rule = CLAIM_RULES.find((candidate) => candidate.pattern.test(sentence));
    if (!rule || flaggedKinds.has(rule.kind)) continue;
    const backed = receipts.some(
      (receipt) => rule.tools.has(receipt.tool) && (receipt.status === "ok" || rule.errorsCount),
    );
    if (backed) continue;
    flaggedKinds.add(rule.kind);
    flags.push({ kind: "unbacked_claim", detail: `${rule.kind}: "${quote(sentence)}"` });
  }
  return flags;
}

/** Each criterion's status from the report's answer lines (`C1: met [r2] …`). */
export function checkCriteria(
  report: string,
  criteria: readonly string[],
  receipts: readonly ToolReceipt[],
): CriterionCheck[] {
  const known = new Set(receipts.map((receipt) => receipt.id));
  const answers = new Map<number, { verdict: string; rest: string }>();
  for (const line of report.split("\n")) {
    const match = ANSWER_LINE.exec(line);
    if (match && !answers.has(Number(match[1])))
      answers.set(Number(match[1]), { verdict: match[2]!.toLowerCase(), rest: match[3] ?? "" });
  }
  return criteria.map((criterion, index) => {
    const answer = answers.get(index + 1);
    if (!answer) return { criterion, status: "unverified", citations: [], note: "not answered in the report" };
    const citations = citationsIn(answer.rest);
    const note = quote(answer.rest.replace(CITATION, "").replace(/^[\s:\-–—]+/, "")) || undefined;
    const base = { criterion, citations, ...(note ? { note } : {}) };
    if (answer.verdict !== "met") return { ...base, status: "unmet" };
    const valid = citations.length > 0 && citations.every((id) => known.has(id));
    return { ...base, status: valid ? "met" : "unverified" };
  });
}

/**
 * Checks a finished subagent's report. A run without a report (failed, timed out, cancelled) passes
 * `undefined`: no citation or claim is checked and every criterion is unverified.
 *
 * @example
 * verifyReport("Wrote notes.md [r1]. C1: met [r1]", [receipt("r1", "write_file")], ["notes.md exists"]);
 * // → { receipts: 1, citations: ["r1"], flags: [], criteria: [{ criterion: "notes.md exists", status: "met", … }] }
 */
export function verifyReport(
  report: string | undefined,
  receipts: readonly ToolReceipt[],
  criteria: readonly string[] = [],
): Verification {
  if (report === undefined || report.trim() === "") {
    return {
      receipts: receipts.length,
      citations: [],
      flags: [],
      criteria: criteria.map((criterion) => ({
        criterion,
        status: "unverified",
        citations: [],
        note: "the task ended without a report",
      })),
    };
  }
  const known = new Set(receipts.map((receipt) => receipt.id));
  const citations = citationsIn(report);
  const flags: VerificationFlag[] = citations
    .filter((id) => !known.has(id))
    .map((id) => ({ kind: "unknown_citation", detail: id }));
  flags.push(...unbackedClaims(report, receipts));
  return { receipts: receipts.length, citations, flags, criteria: checkCriteria(report, criteria, receipts) };
}

/** The lines the lead model reads under a verified result; empty when there is nothing to report. */
export function formatVerification(verification: Verification): string {
  const lines: string[] = [];
  for (const flag of verification.flags) {
    if (flag.kind === "unknown_citation")
      lines.push(`- FLAG: the report cites ${flag.detail}, which none of the subagent's tool calls produced.`);
    else lines.push(`- FLAG: the report claims ${flag.detail}, but no receipt shows that work.`);
  }
  verification.criteria.forEach((check, index) => {
    const cited = check.citations.length > 0 ? ` [${check.citations.join(", ")}]` : "";
    const note = check.note ? ` (${check.note})` : "";
    lines.push(`- C${index + 1} ${check.status}${cited}: ${check.criterion}${note}`);
  });
  if (lines.length === 0) return "";
  const open = verification.criteria.some((check) => check.status !== "met");
  return [
    `Verification by the runtime (${verification.receipts} tool receipts):`,
    ...lines,
    ...(verification.flags.length > 0 ? ["Do not rely on the flagged parts without checking them yourself."] : []),
    ...(open ? ["Unmet and unverified criteria stay open until a later task meets them."] : []),
  ].join("\n");
}

/** The part of the subagent's prompt that asks for citations and, with criteria, for one answer each. */
export function reportInstructions(criteria: readonly string[]): string {
  const base =
    "Each of your tool results ends with a receipt line such as [receipt r3: bash ok, 120 B], stamped by the runtime. " +
    'In your final report, cite the receipts that show the work you describe, e.g. "Wrote src/app.ts [r4]; the tests pass [r6]." ' +
    "Cite only receipts you were given; the lead checks every citation and every claim of work against them.";
  if (criteria.length === 0) return base;
  const list = criteria.map((criterion, index) => `C${index + 1}. ${criterion}`).join("\n");
  return `${base}

Acceptance criteria:
${list}

End your final report with an "Acceptance:" section, one line per criterion: "C1: met [r4] how it was checked" or "C2: unmet why". Say unmet when you could not check it.`;
}

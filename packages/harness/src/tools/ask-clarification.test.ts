import { test } from "node:test";
import assert from "node:assert/strict";
import { parseClarificationArgs, askClarificationTool, formatClarification } from "./ask-clarification.js";

test("formatClarification shows the type icon, the context, the question and numbered options", () => {
  assert.equal(
    formatClarification({
      question: "Which format should the report use?",
      clarification_type: "approach_choice",
      context: "Both are supported by the template.",
      options: ["PDF", " HTML ", ""],
    }),
    "🔀 Both are supported by the template.\n\nWhich format should the report use?\n\n1. PDF\n2. HTML",
  );
});

test("formatClarification without context or options is the icon and the question", () => {
  const icons = {
    missing_info: "❓",
    ambiguous_requirement: "🤔",
    approach_choice: "🔀",
    risk_confirmation: "⚠️",
    suggestion: "💡",
  } as const;
  for (const [type, icon] of Object.entries(icons)) {
    assert.equal(
      formatClarification({ question: "Proceed?", clarification_type: type as keyof typeof icons }),
      `${icon} Proceed?`,
    );
  }
});

test("the tool is returnDirect and answers with the formatted question when run on its own", async () => {
  assert.equal(askClarificationTool.returnDirect, true);
  const text = await askClarificationTool.invoke({
    question: "Delete the old build?",
    clarification_type: "risk_confirmation",
  });
  assert.equal(text, "⚠️ Delete the old build?");
});

test("options sent as null, a JSON string, a plain string or mixed values are coerced, not refused", async () => {
  const base = { question: "Which format?", clarification_type: "approach_choice" as const };
  const parse = (options: unknown) => parseClarificationArgs({ ...base, options }).data!.options;
  assert.equal(parse(null), undefined);
  assert.deepEqual(parse('["PDF", "HTML"]'), ["PDF", "HTML"]);
  assert.deepEqual(parse("PDF or HTML"), ["PDF or HTML"]);
  assert.deepEqual(parse(["PDF", 2, null]), ["PDF", "2"]);
  assert.equal(parseClarificationArgs(base).data!.options, undefined);
  assert.equal(parseClarificationArgs({ question: "", clarification_type: "x" }).success, false);
  const text = await askClarificationTool.invoke({ ...base, options: '["PDF", "HTML"]' });
  assert.equal(text, "🔀 Which format?\n\n1. PDF\n2. HTML");
});

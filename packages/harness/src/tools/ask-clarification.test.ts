import { test } from "node:test";
import assert from "node:assert/strict";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
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
  assert.deepEqual(parse(["PDF", 2, null]), ["PDF", "2", "null"]);
  assert.equal(parseClarificationArgs(base).data!.options, undefined);
  assert.equal(parseClarificationArgs({ question: "", clarification_type: "x" }).success, false);
  const text = await askClarificationTool.invoke({ ...base, options: '["PDF", "HTML"]' });
  assert.equal(text, "🔀 Which format?\n\n1. PDF\n2. HTML");
});

test("an option sent as a JSON string scalar is unquoted, not shown with its quotes", () => {
  const base = { question: "Proceed?", clarification_type: "suggestion" as const };
  const parse = (options: unknown) => parseClarificationArgs({ ...base, options }).data!.options;
  assert.deepEqual(parse('"yes"'), ["yes"]);
  assert.deepEqual(parse("42"), ["42"]);
  assert.deepEqual(parse('["a", "b"]'), ["a", "b"]);
  assert.deepEqual(parse("yes"), ["yes"], "plain text stays as it is");
});

test("null elements of an options list are kept as choices", () => {
  const parsed = parseClarificationArgs({
    question: "Pick one",
    clarification_type: "approach_choice",
    options: '["Option A", 2, true, null]',
  });
  assert.deepEqual(parsed.data!.options, ["Option A", "2", "true", "null"]);
});

test("options parsed from XML into nested objects are flattened in order, tags removed", () => {
  const parse = (options: unknown) =>
    parseClarificationArgs({ question: "How?", clarification_type: "approach_choice", options }).data!.options;
  assert.deepEqual(
    parse({
      item: {
        item: "Move the system section earlier</item>",
        $text: "Merge it into the shared patterns section</item>",
      },
      $text: "Add a standalone section</item>",
    }),
    ["Move the system section earlier", "Merge it into the shared patterns section", "Add a standalone section"],
  );
  assert.deepEqual(parse({ item: [["First</item>"], { $text: 2 }], $text: null }), ["First", "2"]);
});

test("the model is shown one list shape for options and fields, while odd shapes still validate", async () => {
  const shown = convertToOpenAITool(askClarificationTool).function.parameters as {
    properties: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(shown.properties.options, {
    type: "array",
    items: { type: "string" },
    description: "Choices to offer, when the answer is one of a few.",
  });
  assert.equal(shown.properties.fields!.type, "array");
  assert.equal((shown.properties.fields!.items as { type: string }).type, "object");
  assert.ok(!("anyOf" in shown.properties.fields!), "no string or null alternatives");
  const text = await askClarificationTool.invoke({
    question: "Which format?",
    clarification_type: "approach_choice",
    options: "PDF",
    fields: null,
  } as never);
  assert.equal(text, "🔀 Which format?\n\n1. PDF");
});

import { test } from "node:test";
import assert from "node:assert/strict";
import type { ToolReceipt } from "../state/shapes.js";
import { citationsIn, formatVerification, unbackedClaims, verifyReport } from "./verification.js";

const receipt = (id: string, tool: string, status: "ok" | "error" = "ok"): ToolReceipt => ({
  id,
  tool,
  tool_call_id: `call-${id}`,
  args_sha256: "0".repeat(16),
  result_sha256: "1".repeat(16),
  status,
  result_bytes: 10,
});

test("citations are read in every bracket form, once each", () => {
  assert.deepEqual(citationsIn("Done [r1]. See [r2, r3] and [ R3 ] and [r10]."), ["r1", "r2", "r3", "r10"]);
  assert.deepEqual(citationsIn("No [receipt] here, nor [x1]."), []);
});

test("each claim rule needs a receipt of a tool that can do the work", () => {
  const cases: [string, ToolReceipt[], string[]][] = [
    ["I wrote notes.md with the summary.", [], ["files written"]],
    ["I wrote notes.md with the summary.", [receipt("r1", "write_file")], []],
    ["I wrote notes.md with the summary.", [receipt("r1", "write_file", "error")], ["files written"]],
    ["The file report.csv was created.", [receipt("r1", "read_file")], ["files written"]],
    ["I ran the migration script.", [], ["commands run"]],
    ["I ran the migration script.", [receipt("r1", "bash", "error")], []],
    ["All tests passed.", [receipt("r1", "bash", "error")], ["tests passed"]],
    ["All tests passed.", [receipt("r1", "bash")], []],
    ["I fetched the pricing page.", [receipt("r1", "web_fetch")], []],
    ["I fetched the pricing page.", [], ["pages fetched"]],
    // Negated sentences and plain statements claim nothing.
    ["I did not run the tests.", [], []],
    ["I could not write the file notes.md.", [], []],
    ["The tests were not run.", [], []],
    ["The repository uses TypeScript.", [], []],
  ];
  for (const [report, receipts, kinds] of cases) {
    const flags = unbackedClaims(report, receipts);
    assert.deepEqual(
      flags.map((flag) => flag.detail.split(":")[0]),
      kinds,
      report,
    );
  }
});

test("criteria answers: met with a valid citation, unmet, unverified (no citation, unknown one, no answer)", () => {
  const report = [
    "Summary.",
    "Acceptance:",
    "C1: met [r1] 12 passing",
    "- C2: unmet - README not touched",
    "**C3**: met, I looked",
    "C4: met [r9]",
  ].join("\n");
  const result = verifyReport(report, [receipt("r1", "bash")], ["tests pass", "README", "lint", "types", "docs"]);
  assert.deepEqual(
    result.criteria.map((check) => check.status),
    ["met", "unmet", "unverified", "unverified", "unverified"],
  );
  assert.equal(result.criteria[1]?.note, "README not touched");
  assert.equal(result.criteria[4]?.note, "not answered in the report");
  assert.deepEqual(result.flags, [{ kind: "unknown_citation", detail: "r9" }]);
});

test("a run without a report leaves every criterion unverified and checks nothing else", () => {
  const result = verifyReport(undefined, [receipt("r1", "bash")], ["tests pass"]);
  assert.deepEqual(result, {
    receipts: 1,
    citations: [],
    flags: [],
    criteria: [
      { criterion: "tests pass", status: "unverified", citations: [], note: "the task ended without a report" },
    ],
  });
});

test("the lead reads flags and criteria under the result; a clean run without criteria adds nothing", () => {
  assert.equal(formatVerification(verifyReport("Ran it [r1].", [receipt("r1", "bash")])), "");
  const text = formatVerification(verifyReport("C1: unmet no time", [], ["docs updated"]));
  assert.match(text, /^Verification by the runtime \(0 tool receipts\):\n- C1 unmet: docs updated \(no time\)/);
  assert.match(text, /stay open until a later task meets them/);
});

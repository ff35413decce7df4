/**
 * The answer printer alone, fed `messages`-mode chunks as LangGraph emits them: what it writes, and what
 * a terminal shows after replaying that (the screen helper of the pty tests).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { AIMessage, AIMessageChunk, ToolMessage } from "@langchain/core/messages";
import { AnswerPrinter, answerStreams, leadAnswerPiece } from "../src/answer-printer.js";
import { cellWidth, screenRows } from "../src/screen-rows.js";
import { screenText } from "./pty.js";

const lead = { langgraph_node: "model_request", langgraph_checkpoint_ns: "model_request:1" };
const chunk = (id: string, content: string, toolCall = false) => [
  new AIMessageChunk({
    id,
    content,
    tool_call_chunks: toolCall ? [{ name: "ls", args: "", id: "call-1", index: 0, type: "tool_call_chunk" }] : [],
  }),
  lead,
];

function printer(stream = true, columns = 20) {
  let written = "";
  const answer = new AnswerPrinter({ stream, columns: () => columns, write: (text) => (written += text) });
  return { answer, written: () => written, screen: () => screenText(written, columns) };
}

test("only the lead model's messages count: not tool results, other nodes or nested graphs", () => {
  assert.deepEqual(leadAnswerPiece(chunk("m1", "Hel")), { id: "m1", text: "Hel", whole: false, callsTool: false });
  assert.equal(
    leadAnswerPiece([new ToolMessage({ content: "x", tool_call_id: "c" }), { langgraph_node: "tools" }]),
    null,
  );
  assert.equal(leadAnswerPiece([new AIMessage("title"), { langgraph_node: "deerflow-chain.after_agent" }]), null);
  assert.equal(
    leadAnswerPiece([
      new AIMessage("sub"),
      { langgraph_node: "model_request", langgraph_checkpoint_ns: "tools:1|model_request:2" },
    ]),
    null,
  );
  assert.deepEqual(leadAnswerPiece([new AIMessage({ id: "m2", content: "Whole." }), lead]), {
    id: "m2",
    text: "Whole.",
    whole: true,
    callsTool: false,
  });
  const reasoning = new AIMessageChunk({
    id: "m3",
    content: [
      { type: "thinking", thinking: "hmm" },
      { type: "text", text: "Yes." },
    ],
  });
  assert.equal(leadAnswerPiece([reasoning, lead])?.text, "Yes.", "reasoning is not answer text");
});

test("text before a tool call is taken back, even when it wrapped over several rows; the answer stays", () => {
  const { answer, written, screen } = printer(true, 20);
  answer.onModelChunk(chunk("m1", "Let me look at the "));
  answer.onModelChunk(chunk("m1", "workspace first, please wait."));
  assert.equal(screen(), "Let me look at the w\norkspace first, plea\nse wait.\n");
  answer.onModelChunk(chunk("m1", "", true));
  assert.equal(screen(), "");
  answer.onModelChunk(chunk("m2", "Done: "));
  answer.onModelChunk(chunk("m2", "two files."));
  answer.final("Done: two files.", false);
  assert.equal(screen(), "Done: two files.\n");
  assert.ok(written().endsWith("two files.\n"), "completed in place, not printed twice");
  assert.equal(answer.holdsScreen, true);
});

test("a final message that differs from what streamed replaces it; hide() clears the screen until the next piece", () => {
  const { answer, screen } = printer(true, 80);
  answer.onModelChunk(chunk("m1", "Partial"));
  answer.hide();
  assert.equal(screen(), "");
  answer.onModelChunk(chunk("m1", " text"));
  assert.equal(screen(), "Partial text\n");
  answer.final("Which environment?", true);
  assert.equal(screen(), "Which environment?\n");
});

test("without streaming, chunks are ignored and the answer is written once, whole", () => {
  const { answer, written } = printer(false);
  answer.onModelChunk(chunk("m1", "ignored"));
  answer.final("The answer.", false);
  answer.final("again", false);
  assert.equal(written(), "The answer.\n");
});

test("control characters are neutralised in streamed text too", () => {
  const { answer, written } = printer(true, 80);
  answer.onModelChunk(chunk("m1", "red \x1b[31m"));
  answer.final("red \x1b[31m", false);
  assert.equal(written(), "red ^[[31m\n");
});

test("screenRows counts wrapped rows, wide characters and tabs as a terminal does", () => {
  assert.equal(screenRows("hello", 80), 1);
  assert.equal(screenRows("a".repeat(80), 80), 1, "filling the row exactly does not start another");
  assert.equal(screenRows("a".repeat(81), 80), 2);
  assert.equal(screenRows("one\ntwo\n", 80), 3);
  assert.equal(screenRows("漢字漢字", 6), 2);
  assert.equal(screenRows("ab漢", 3), 2, "a wide character does not split across rows");
  assert.equal(screenRows(`${"\t".repeat(20)}x`, 80), 1, "tabs stop at the last column");
  assert.equal(cellWidth("😀"), 2);
  assert.equal(cellWidth("\u0301"), 0);
});

test("the answer streams only to a terminal that can move its cursor, and not with --no-stream", () => {
  assert.equal(answerStreams({ stream: true }, { isTTY: true }, { TERM: "xterm-256color" }), true);
  assert.equal(answerStreams({ stream: true }, { isTTY: undefined }, {}), false, "a pipe or a file");
  assert.equal(answerStreams({ stream: true }, { isTTY: true }, { TERM: "dumb" }), false);
  assert.equal(answerStreams({ stream: false }, { isTTY: true }, {}), false);
});

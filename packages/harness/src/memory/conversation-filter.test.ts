import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { filterConversationForMemory } from "./conversation-filter.js";

test("only user messages and final answers are kept; tool traffic, system and hidden messages are dropped", () => {
  const turns = filterConversationForMemory([
    new SystemMessage({ content: "You are DeerFlow.", id: "s1" }),
    new HumanMessage({ content: "Summarise <b>report</b> for me", id: "h1" }),
    new HumanMessage({
      content: "<durable_context>summary of earlier work</durable_context>",
      id: "h2",
      additional_kwargs: { hide_from_ui: true, durable_context_data: true },
    }),
    new AIMessage({
      content: "Let me read it.",
      id: "a1",
      tool_calls: [{ name: "read_file", args: { path: "/mnt/user-data/uploads/report.md" }, id: "c1" }],
    }),
    new ToolMessage({ content: "file contents ...", tool_call_id: "c1", id: "t1" }),
    new AIMessage({ content: [{ type: "text", text: "The report says revenue grew." }], id: "a2" }),
    new AIMessage({ content: "internal note", id: "a3", additional_kwargs: { hide_from_ui: true } }),
  ]);
  assert.deepEqual(turns, [
    { role: "user", content: "Summarise <b>report</b> for me" },
    { role: "assistant", content: "The report says revenue grew." },
  ]);
});

test("upload blocks are stripped from user text, and an upload-only message is dropped", () => {
  const turns = filterConversationForMemory([
    new HumanMessage({
      content:
        "<uploaded_files>\n- report.pdf (12 KB) /mnt/user-data/uploads/report.pdf\n</uploaded_files>\n\nI work at Acme",
      id: "h1",
    }),
    new HumanMessage({ content: "<uploaded_files>\n- data.csv\n</uploaded_files>", id: "h2" }),
    new HumanMessage({
      content: [
        { type: "text", text: "What is in it?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
      id: "h3",
    }),
  ]);
  assert.deepEqual(turns, [
    { role: "user", content: "I work at Acme" },
    { role: "user", content: "What is in it?" },
  ]);
});

test("an upload-only turn is dropped together with the reply to it, so document contents do not become facts", () => {
  const turns = filterConversationForMemory([
    new HumanMessage({ content: "I work at Acme", id: "h1" }),
    new AIMessage({ content: "Noted.", id: "a1" }),
    new HumanMessage({ content: "<uploaded_files>\n- cv.pdf\n</uploaded_files>", id: "h2" }),
    new AIMessage({
      content: "Let me read it.",
      id: "a2",
      tool_calls: [{ name: "read_file", args: { path: "/mnt/user-data/uploads/cv.pdf" }, id: "c1" }],
    }),
    new ToolMessage({ content: "Jane Doe, 20 years at Initech", tool_call_id: "c1", id: "t1" }),
    new AIMessage({ content: "The CV belongs to Jane Doe, who worked 20 years at Initech.", id: "a3" }),
    new HumanMessage({ content: "Thanks, I prefer short answers", id: "h3" }),
    new AIMessage({ content: "Will do.", id: "a4" }),
  ]);
  assert.deepEqual(turns, [
    { role: "user", content: "I work at Acme" },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "Thanks, I prefer short answers" },
    { role: "assistant", content: "Will do." },
  ]);
});

test("a clarification answer sent hidden is kept as the user's words; a partial one, or a todo reminder, is not", () => {
  const reply = {
    version: 1,
    kind: "human_input_response",
    source: "ask_clarification",
    request_id: "clarification:call-1",
    response_kind: "option",
    option_id: "staging",
    value: "staging",
  };
  const hidden = (content: string, extra: Record<string, unknown>) =>
    new HumanMessage({ content, additional_kwargs: { hide_from_ui: true, ...extra } });
  const turns = filterConversationForMemory([
    new HumanMessage("Deploy the service"),
    new AIMessage({
      content: "",
      tool_calls: [{ name: "ask_clarification", args: { question: "Which environment?" }, id: "call-1" }],
    }),
    new ToolMessage({ content: "Which environment?", tool_call_id: "call-1", name: "ask_clarification" }),
    hidden("My answer: staging, we always deploy there first", { human_input_response: reply }),
    hidden("My answer: production", { human_input_response: { ...reply, option_id: "" } }),
    hidden("Remember your todo list", {}),
    new AIMessage("Deployed to staging."),
  ]);
  assert.deepEqual(turns, [
    { role: "user", content: "Deploy the service" },
    { role: "user", content: "My answer: staging, we always deploy there first" },
    { role: "assistant", content: "Deployed to staging." },
  ]);
  const text = { ...reply, response_kind: "text", option_id: undefined, value: "eu-west" };
  assert.equal(filterConversationForMemory([hidden("eu-west", { human_input_response: text })]).length, 1);
  assert.equal(
    filterConversationForMemory([hidden("eu-west", { human_input_response: { ...text, version: 2 } })]).length,
    0,
  );
});

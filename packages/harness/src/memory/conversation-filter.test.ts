import { test } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { filterConversationForMemory } from "./conversation-filter.js";

test("only user messages and final answers are kept; tool traffic, system and hidden messages are dropped", () => {
  const turns = filterConversationForMemory([
    new SystemMessage({ content: "You are DeerFlow.", id: "s1" }),
    new HumanMessage({ content: "Summarise <b>report</b> for me", id: "h1" }),
    new HumanMessage({ content: "<durable_context>summary of earlier work</durable_context>", id: "h2", additional_kwargs: { hide_from_ui: true, durable_context_data: true } }),
    new AIMessage({ content: "Let me read it.", id: "a1", tool_calls: [{ name: "read_file", args: { path: "/mnt/user-data/uploads/report.md" }, id: "c1" }] }),
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
    new HumanMessage({ content: "<uploaded_files>\n- report.pdf (12 KB) /mnt/user-data/uploads/report.pdf\n</uploaded_files>\n\nI work at Acme", id: "h1" }),
    new HumanMessage({ content: "<uploaded_files>\n- data.csv\n</uploaded_files>", id: "h2" }),
    new HumanMessage({ content: [{ type: "text", text: "What is in it?" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }], id: "h3" }),
  ]);
  assert.deepEqual(turns, [
    { role: "user", content: "I work at Acme" },
    { role: "user", content: "What is in it?" },
  ]);
});

/**
 * Streaming must not re-render earlier messages: while the last answer grows token by token, and
 * when the SDK hands over fresh copies of every message (a `values` event, a history refetch), only
 * the streaming message renders. Counted with the app's own render counter (`__deerflowRenders`,
 * the one bench/web.ts reads in Chromium).
 */
import type { Message } from "@langchain/langgraph-sdk";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MessageList } from "../src/chat/MessageList";

const counts = () => (globalThis as { __deerflowRenders?: Record<string, number> }).__deerflowRenders!;

beforeEach(() => {
  (globalThis as { __deerflowRenders?: Record<string, number> }).__deerflowRenders = {};
});
afterEach(() => {
  cleanup();
  delete (globalThis as { __deerflowRenders?: Record<string, number> }).__deerflowRenders;
});

function earlier(): Message[] {
  return [
    { type: "human", id: "h1", content: "Write a note" },
    {
      type: "ai",
      id: "a1",
      content: "",
      tool_calls: [{ id: "c1", name: "write_file", args: { path: "/mnt/user-data/outputs/n.md" } }],
    } as Message,
    { type: "tool", id: "t1", tool_call_id: "c1", name: "write_file", content: "OK" } as Message,
    { type: "ai", id: "a2", content: "Done: **n.md** is written.\n\n```ts\nconst x = 1;\n```" },
    {
      type: "human",
      id: "h2",
      content: "Now a long answer",
      additional_kwargs: { files: [{ filename: "a.txt", size: 3 }] },
    } as Message,
  ];
}

it("earlier messages do not re-render while the last one streams, even when they arrive as new objects", () => {
  const scroller = { current: null };
  let history = earlier();
  const view = (words: number, running: boolean, copies = history) => (
    <MessageList
      messages={[
        ...copies,
        { type: "ai", id: "live", content: Array.from({ length: words }, (_, i) => `w${i}`).join(" ") },
      ]}
      running={running}
      cards={{}}
      scroller={scroller}
    />
  );
  const { rerender } = render(view(1, true));
  for (const id of ["h1", "a1", "a2", "h2"]) expect(counts()[id]).toBe(1);

  for (let words = 2; words <= 60; words++) {
    // Every tenth token a `values` event: the same messages, parsed again into new objects.
    if (words % 10 === 0) history = structuredClone(history);
    rerender(view(words, true, history));
  }
  rerender(view(60, false, structuredClone(history)));

  expect(screen.getByText(/w59/)).toBeTruthy();
  for (const id of ["h1", "a1", "a2", "h2"]) expect(counts()[id], `renders of ${id}`).toBe(1);
  expect(counts().live).toBeGreaterThanOrEqual(60);
});

it("a changed earlier message (a tool result arriving) does render again", () => {
  const scroller = { current: null };
  const messages = earlier().filter((m) => m.type !== "tool");
  const { rerender } = render(<MessageList messages={messages} running={true} cards={{}} scroller={scroller} />);
  rerender(
    <MessageList
      messages={[
        ...messages,
        { type: "tool", id: "t1", tool_call_id: "c1", name: "write_file", content: "OK" } as Message,
      ]}
      running={true}
      cards={{}}
      scroller={scroller}
    />,
  );
  expect(counts().a1).toBe(2);
  expect(counts().a2).toBe(1);
});

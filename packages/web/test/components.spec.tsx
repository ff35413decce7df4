/**
 * Component tests (Vitest + jsdom + Testing Library): what a user sees and does with the composer, tool
 * cards, the plan, subagent cards, the clarification, the sidebar's delete confirmation, and the pure
 * readers of the wire format they rely on.
 */
import type { Message, Thread } from "@langchain/langgraph-sdk";
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Composer } from "../src/chat/Composer";
import { pendingClarification, reasoningOf, shortArgs, toolCallsOf } from "../src/chat/messages";
import { MessageView } from "../src/chat/MessageView";
import { ToolCard } from "../src/chat/ToolCard";
import { previewKind } from "../src/harness/Artifacts";
import { applyBatchEvent } from "../src/harness/batches";
import { Clarification } from "../src/harness/Clarification";
import { parseCsv } from "../src/harness/csv";
import { Plan } from "../src/harness/Plan";
import { Subagents } from "../src/harness/Subagents";
import { applyTaskEvent, cardsFromState, type SubagentCard, withSavedVerification } from "../src/harness/subagents";
import { headerTitle, Sidebar, threadTitle } from "../src/threads/Sidebar";
import { setLocale } from "../src/i18n";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

describe("Composer", () => {
  it("sends on Enter, keeps a new line on Shift+Enter, and clears after sending", async () => {
    const onSend = vi.fn();
    render(<Composer draftKey="t1" running={false} onSend={onSend} onStop={() => {}} />);
    const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
    fireEvent.change(box, { target: { value: "first line" } });
    fireEvent.keyDown(box, { key: "Enter", shiftKey: true });
    expect(onSend).not.toHaveBeenCalled();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("first line", []);
    await vi.waitFor(() => expect(box.value).toBe(""));
  });

  it("shows Stop while a run is going and keeps the draft across a remount", () => {
    const onStop = vi.fn();
    const { unmount } = render(<Composer draftKey="t2" running={true} onSend={() => {}} onStop={onStop} />);
    fireEvent.change(screen.getByLabelText("Message"), { target: { value: "half typed" } });
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(onStop).toHaveBeenCalledOnce();
    unmount();
    render(<Composer draftKey="t2" running={false} onSend={() => {}} onStop={() => {}} />);
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("half typed");
  });
});

describe("Composer files", () => {
  it("a refused file keeps its chip with the reason, and the draft stays", async () => {
    const onSend = vi.fn(async () => ({ refused: { "big.bin": "File is over the 50 MB limit." } }));
    render(<Composer draftKey="t3" running={false} onSend={onSend} onStop={() => {}} />);
    const input = screen.getAllByLabelText("Attach files").find((el) => el.tagName === "INPUT") as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(["x"], "big.bin")] } });
    fireEvent.change(screen.getByLabelText("Message"), { target: { value: "use it" } });
    fireEvent.keyDown(screen.getByLabelText("Message"), { key: "Enter" });
    await screen.findByText("File is over the 50 MB limit.");
    expect(onSend).toHaveBeenCalledWith("use it", [expect.objectContaining({ name: "big.bin" })]);
    expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("use it");
  });

  it("a user message shows its uploaded files as chips", () => {
    const message = {
      type: "human",
      id: "h1",
      content: "see file",
      additional_kwargs: { files: [{ filename: "data.csv", size: 3, path: "/mnt/user-data/uploads/data.csv" }] },
    } as unknown as Message;
    render(<MessageView message={message} tools={[]} running={false} />);
    expect(screen.getByTestId("msg-human").textContent).toContain("data.csv");
  });

  it("a user message shows what the user typed, not the uploads block the harness added for the model", () => {
    const content =
      "<current_uploads>\nThe following files were uploaded in this message:\n\n- data.csv\n</current_uploads>\n\nsee file";
    const message = {
      type: "human",
      id: "h2",
      content,
      additional_kwargs: { original_user_content: "see file", files: [{ filename: "data.csv", size: 3 }] },
    } as unknown as Message;
    render(<MessageView message={message} tools={[]} running={false} />);
    const bubble = screen.getByTestId("msg-human").querySelector(".bubble")!;
    expect(bubble.textContent).toBe("see file");
  });
});

describe("tool calls", () => {
  const ai = {
    type: "ai",
    id: "a1",
    content: "Writing.",
    tool_calls: [{ id: "c1", name: "write_file", args: { path: "/mnt/user-data/outputs/a.md", content: "x" } }],
  } as unknown as Message;

  it("pairs calls with results and marks failures", () => {
    expect(toolCallsOf(ai, [ai])[0]!.result).toBeUndefined();
    const failed = {
      type: "tool",
      id: "t1",
      tool_call_id: "c1",
      content: "Error: disk full",
      status: "error",
    } as unknown as Message;
    expect(toolCallsOf(ai, [ai, failed])[0]!.result).toEqual({ text: "Error: disk full", error: true });
    expect(shortArgs({ content: "x", path: "/a.md" })).toBe("path: /a.md, content: x");
  });

  it("a card shows name and arguments, a running spinner, and the result when expanded", () => {
    const { rerender } = render(
      <ToolCard view={{ call: { id: "c1", name: "write_file", args: { path: "/a.md" } } }} running={true} />,
    );
    const card = screen.getByTestId("tool-card");
    expect(card.dataset.state).toBe("running");
    expect(card.textContent).toContain("write_file");
    expect(card.textContent).toContain("path: /a.md");
    rerender(
      <ToolCard
        view={{
          call: { id: "c1", name: "write_file", args: { path: "/a.md" } },
          result: { text: "Error: no space", error: true },
        }}
        running={false}
      />,
    );
    expect(screen.getByTestId("tool-card").dataset.state).toBe("error");
    fireEvent.click(screen.getByRole("button", { expanded: false }));
    expect(screen.getByText("Error")).toBeTruthy();
    expect(screen.getAllByText("Error: no space").length).toBeGreaterThan(0);
  });

  it("a batch_task card shows its progress from batch_progress events, in the chosen language", () => {
    let batches = applyBatchEvent({}, { type: "task_running", task_id: "x" });
    expect(batches).toEqual({});
    const event = { type: "batch_progress", tool_call_id: "b1", description: "Label", total: 200, done: 50, failed: 0 };
    batches = applyBatchEvent(batches, event);
    batches = applyBatchEvent(batches, { ...event, done: 99, failed: 1 });
    expect(applyBatchEvent(batches, { ...event, done: 10 })).toBe(batches);
    const message = {
      type: "ai",
      id: "a3",
      content: "",
      tool_calls: [{ id: "b1", name: "batch_task", args: { description: "Label" } }],
    } as unknown as Message;
    const tools = toolCallsOf(message, []);
    const { rerender } = render(
      <MessageView message={message} tools={tools} running={true} batches={Object.values(batches)} />,
    );
    const bar = screen.getByRole("progressbar", { name: "Batch progress" });
    expect(bar.getAttribute("aria-valuenow")).toBe("50");
    expect(screen.getByTestId("batch-progress").textContent).toContain("99 of 200 done, 1 failed");
    batches = applyBatchEvent(batches, { ...event, done: 199, failed: 1 });
    rerender(<MessageView message={message} tools={tools} running={true} batches={Object.values(batches)} />);
    expect(screen.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100");
    act(() => setLocale("zh"));
    expect(screen.getByTestId("batch-progress").textContent).toContain("已完成 199/200，失败 1");
    act(() => setLocale(undefined));
  });

  it("an AI message renders Markdown and keeps reasoning collapsed", () => {
    const message = {
      type: "ai",
      id: "a2",
      content: "**Done** with `x`",
      additional_kwargs: { reasoning_content: "thinking hard" },
    } as unknown as Message;
    expect(reasoningOf(message)).toBe("thinking hard");
    render(<MessageView message={message} tools={[]} running={false} />);
    expect(screen.getByText("Done").tagName).toBe("STRONG");
    const details = screen.getByText("Reasoning").closest("details")!;
    expect(details.open).toBe(false);
  });
});

describe("what the harness does", () => {
  it("the plan shows each todo with its status", () => {
    render(
      <Plan
        todos={[
          { content: "Write", status: "completed" },
          { content: "Read", status: "in_progress" },
          { content: "Present", status: "pending" },
        ]}
      />,
    );
    expect(screen.getByTestId("plan").textContent).toContain("1/3");
    expect(screen.getByText("Read").closest("li")!.dataset.status).toBe("in_progress");
  });

  it("task events fold into a subagent card with status, latest step and result", () => {
    let cards: Record<string, SubagentCard> = {};
    cards = applyTaskEvent(
      cards,
      { type: "task_started", task_id: "t1", description: "Research deer", subagent_type: "general-purpose" },
      1000,
    );
    cards = applyTaskEvent(
      cards,
      {
        type: "task_running",
        task_id: "t1",
        message_index: 0,
        message: { type: "ai", content: "", tool_calls: [{ name: "web_search", args: '{"q":"deer"}' }] },
      },
      2000,
    );
    expect(cards.t1!.latestStep).toContain("web_search");
    cards = applyTaskEvent(cards, { type: "task_completed", task_id: "t1", result: "Deer are ruminants." }, 5000);
    expect(applyTaskEvent(cards, { type: "something_else" })).toBe(cards);
    render(<Subagents cards={Object.values(cards)} />);
    const card = screen.getByTestId("subagent-card");
    expect(card.dataset.status).toBe("completed");
    expect(card.textContent).toContain("Research deer");
    expect(card.textContent).toContain("4s");
    expect(card.textContent).toContain("Deer are ruminants.");
  });

  it("a verified task's card shows its receipts, the flags with a note, and each criterion's status", () => {
    let cards: Record<string, SubagentCard> = {};
    cards = applyTaskEvent(
      cards,
      { type: "task_started", task_id: "t2", description: "Run tests", subagent_type: "bash" },
      1000,
    );
    cards = applyTaskEvent(cards, { type: "task_queued", task_id: "t2", position: 2 }, 1000);
    expect(cards.t2!.queuePosition).toBe(2);
    cards = applyTaskEvent(cards, {
      type: "task_verified",
      task_id: "t2",
      receipts: 3,
      citations: ["r1", "r9"],
      flags: [
        { kind: "unknown_citation", detail: "r9" },
        { kind: "unbacked_claim", detail: 'tests passed: "All tests passed."' },
        { kind: "bogus", detail: "dropped" },
      ],
      criteria: [
        { criterion: "npm test passes", status: "met", citations: ["r1"] },
        { criterion: "docs updated", status: "unmet", citations: [] },
      ],
    });
    cards = applyTaskEvent(cards, { type: "task_completed", task_id: "t2", result: "Done [r1] [r9]." }, 3000);
    expect(cards.t2!.flags).toHaveLength(2);
    render(<Subagents cards={Object.values(cards)} />);
    const card = screen.getByTestId("subagent-card");
    expect(screen.getByTestId("subagent-flag-badge").textContent).toContain("2 flagged");
    expect(card.textContent).toContain("3 tool receipts");
    const flags = screen.getByTestId("subagent-flags");
    expect(flags.textContent).toContain("no tool receipt supports");
    expect(flags.textContent).toContain("Cites r9, which no tool call produced");
    expect(flags.textContent).toContain("Claims tests passed");
    const criteria = screen.getByTestId("subagent-criteria").querySelectorAll("li");
    expect([...criteria].map((li) => [li.dataset.status, li.textContent?.trim()])).toEqual([
      ["met", "Met: npm test passes"],
      ["unmet", "Unmet: docs updated"],
    ]);
    expect(card.textContent).not.toContain("Waiting for a subagent slot");
  });

  it("saved delegations become cards when a thread is opened after its run", () => {
    const cards = cardsFromState([
      { id: "call_1", description: "Summarise", subagent_type: "bash", status: "timed_out", result_brief: "partial" },
    ]);
    expect(cards.call_1).toMatchObject({ status: "timed_out", description: "Summarise", result: "partial" });
    render(<Subagents cards={Object.values(cards)} />);
    expect(screen.getByTestId("subagent-card").textContent).not.toMatch(/\d+s/);
  });

  it("a saved card gets its report's check from the task result", () => {
    const cards = withSavedVerification(
      cardsFromState([{ id: "call_2", description: "Check", subagent_type: "bash", status: "completed" }]),
      [
        {
          type: "tool",
          name: "task",
          tool_call_id: "call_2",
          content: "Task Succeeded.",
          additional_kwargs: {
            subagent_verification: {
              receipts: 2,
              citations: ["r4"],
              flags: [{ kind: "unknown_citation", detail: "r4" }],
              criteria: [{ criterion: "docs updated", status: "unverified", citations: [] }],
            },
          },
        },
      ],
    );
    expect(cards.call_2).toMatchObject({ receipts: 2, flags: [{ detail: "r4" }] });
    render(<Subagents cards={Object.values(cards)} />);
    expect(screen.getByTestId("subagent-card").textContent).toContain("Unverified: docs updated");
  });

  it("a clarification offers its options as buttons", () => {
    const ask = {
      type: "tool",
      id: "t9",
      name: "ask_clarification",
      tool_call_id: "c9",
      content: "Which format?",
      artifact: {
        human_input: {
          question: "Which format?",
          options: [
            { id: "option-1", label: "Markdown", value: "Markdown" },
            { id: "option-2", label: "HTML", value: "HTML" },
          ],
        },
      },
    } as unknown as Message;
    const request = pendingClarification([ask])!;
    expect(request).toEqual({ question: "Which format?", options: ["Markdown", "HTML"] });
    const onAnswer = vi.fn();
    render(<Clarification request={request} onAnswer={onAnswer} />);
    fireEvent.click(screen.getByRole("button", { name: "HTML" }));
    expect(onAnswer).toHaveBeenCalledWith("HTML");
    fireEvent.change(screen.getByLabelText("Your answer"), { target: { value: "Plain text, please" } });
    fireEvent.click(screen.getByRole("button", { name: "Answer" }));
    expect(onAnswer).toHaveBeenLastCalledWith("Plain text, please");
  });

  it("artifacts are previewed by kind; CSV keeps quoted commas", () => {
    expect(["a.md", "b.html", "c.png", "d.csv", "e.py"].map(previewKind)).toEqual([
      "markdown",
      "html",
      "image",
      "csv",
      "text",
    ]);
    expect(parseCsv('name,note\n"Doe, J","said ""hi"""\n')).toEqual([
      ["name", "note"],
      ["Doe, J", 'said "hi"'],
    ]);
  });
});

describe("Sidebar", () => {
  it("deletes only after confirmation and filters by search", () => {
    const onDelete = vi.fn();
    const threads = [
      { id: "t1", title: "Deer notes", updatedAt: "", status: "idle" },
      { id: "t2", title: "Budget", updatedAt: "", status: "idle" },
    ];
    render(
      <Sidebar
        threads={threads}
        currentId="t1"
        onOpen={() => {}}
        onNew={() => {}}
        onSchedules={() => {}}
        schedulesOpen={false}
        onRename={() => {}}
        onDelete={onDelete}
      />,
    );
    fireEvent.change(screen.getByLabelText("Search chats"), { target: { value: "deer" } });
    expect(screen.getAllByTestId("thread-item")).toHaveLength(1);
    fireEvent.click(screen.getByRole("button", { name: "Delete Deer notes" }));
    expect(onDelete).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Delete" }));
    expect(onDelete).toHaveBeenCalledWith("t1");
  });
});

describe("thread titles", () => {
  it("the header shows the user's rename over the title the harness set, in the list and streamed", () => {
    const thread = (metadata: Record<string, unknown>, values: Record<string, unknown>) =>
      ({ thread_id: "t1", metadata, values, updated_at: "", status: "idle" }) as unknown as Thread;
    const harnessTitled = thread({}, { title: "Plan a picnic" });
    const renamed = thread({ title: "Picnic plans (renamed)" }, { title: "Plan a picnic" });
    const item = (t: Thread) => ({
      id: "t1",
      title: threadTitle(t),
      renamed: (t.metadata as { title?: string }).title,
      updatedAt: "",
      status: "idle",
    });
    expect(headerTitle(item(renamed), "Plan a picnic", true)).toBe("Picnic plans (renamed)");
    expect(headerTitle(item(harnessTitled), "A newer title", true)).toBe("A newer title");
    expect(headerTitle(item(harnessTitled), undefined, true)).toBe("Plan a picnic");
    expect(headerTitle(undefined, undefined, true)).toBe("Chat");
    expect(headerTitle(undefined, undefined, false)).toBe("New chat");
  });
});

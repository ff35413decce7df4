/**
 * Regenerate / edit / version picker pieces (issue 26): the picker read from the SDK's branch metadata,
 * and the latest question's inline editor (Cancel restores the message, Save sends, a refusal shows why
 * and keeps the draft).
 */
import type { Message } from "@langchain/langgraph-sdk";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { branchView } from "../src/chat/branches";
import { MessageView } from "../src/chat/MessageView";

afterEach(cleanup);

describe("branchView", () => {
  it("shows no picker without siblings, and steps between them", () => {
    const setBranch = vi.fn();
    expect(branchView(undefined, setBranch)).toBeUndefined();
    expect(branchView({ branch: "a", branchOptions: ["a"] }, setBranch)).toBeUndefined();
    const view = branchView({ branch: "b", branchOptions: ["a", "b"] }, setBranch)!;
    expect([view.index, view.total]).toEqual([1, 2]);
    view.go(1);
    expect(setBranch).not.toHaveBeenCalled();
    view.go(-1);
    expect(setBranch).toHaveBeenCalledWith("a");
  });

  it("renders ‹ 2/2 › on a message and switches with its buttons", () => {
    const setBranch = vi.fn();
    const message = { type: "ai", id: "a1", content: "Second answer" } as Message;
    const branch = branchView({ branch: "b", branchOptions: ["a", "b"] }, setBranch);
    render(<MessageView message={message} tools={[]} running={false} branch={branch} />);
    expect(screen.getByTestId("branch-picker").textContent).toContain("2/2");
    expect((screen.getByLabelText("Next version") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByLabelText("Previous version"));
    expect(setBranch).toHaveBeenCalledWith("a");
  });
});

describe("editing the latest question", () => {
  const question = { type: "human", id: "h1", content: "Name a colour" } as Message;

  it("Cancel restores the message; Save sends the new text", async () => {
    const onEdit = vi.fn(async () => undefined);
    render(<MessageView message={question} tools={[]} running={false} onEdit={onEdit} />);
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    fireEvent.change(screen.getByLabelText("Edit your message"), { target: { value: "Name a fruit" } });
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.getByText("Name a colour")).toBeTruthy();
    expect(onEdit).not.toHaveBeenCalled();

    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    const box = screen.getByLabelText("Edit your message") as HTMLTextAreaElement;
    expect(box.value).toBe("Name a colour");
    fireEvent.change(box, { target: { value: "Name a fruit" } });
    fireEvent.click(screen.getByRole("button", { name: "Save and send" }));
    expect(onEdit).toHaveBeenCalledWith("h1", "Name a fruit");
    await vi.waitFor(() => expect(screen.queryByLabelText("Edit your message")).toBeNull());
  });

  it("keeps the draft and shows the server's reason when the edit is refused", async () => {
    const onEdit = vi.fn(async () => "Thread t has a run in progress");
    render(<MessageView message={question} tools={[]} running={false} onEdit={onEdit} />);
    fireEvent.click(screen.getByRole("button", { name: "Edit" }));
    fireEvent.change(screen.getByLabelText("Edit your message"), { target: { value: "Name a fruit" } });
    fireEvent.click(screen.getByRole("button", { name: "Save and send" }));
    expect((await screen.findByRole("alert")).textContent).toContain("run in progress");
    expect((screen.getByLabelText("Edit your message") as HTMLTextAreaElement).value).toBe("Name a fruit");
  });

  it("offers no Edit on a message that is not the latest question", () => {
    render(<MessageView message={question} tools={[]} running={false} />);
    expect(screen.queryByRole("button", { name: "Edit" })).toBeNull();
  });
});

/**
 * The composer's `/goal` command and conversation references, and the goal banner: what the user
 * types and picks, and what reaches the chat's handlers.
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Composer } from "../src/chat/Composer";
import { goalCommandOf, newGoal } from "../src/chat/goal";
import { GoalBanner } from "../src/chat/GoalBanner";

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

const type = (text: string) => {
  const box = screen.getByLabelText("Message") as HTMLTextAreaElement;
  fireEvent.change(box, { target: { value: text } });
  fireEvent.keyDown(box, { key: "Enter" });
  return box;
};

describe("/goal", () => {
  it("parses set, show and clear like deerflow chat", () => {
    expect(goalCommandOf("/goal")).toEqual({ kind: "show" });
    expect(goalCommandOf("/goal  Off ")).toEqual({ kind: "clear" });
    expect(goalCommandOf("/goal Ship\nthe beta")).toEqual({ kind: "set", objective: "Ship\nthe beta" });
    expect(goalCommandOf("/goals are nice")).toBeUndefined();
    expect(goalCommandOf("my /goal")).toBeUndefined();
    expect(newGoal("Ship\n the  beta")).toMatchObject({ objective: "Ship the beta" });
    expect(newGoal("x".repeat(4001))).toEqual({ error: expect.stringMatching(/at most 4000/) });
  });

  it("a /goal line runs the command instead of being sent; its error stays with the draft", async () => {
    const onSend = vi.fn();
    const onGoal = vi.fn(async () => undefined);
    render(<Composer draftKey="g1" running={false} onSend={onSend} onStop={() => {}} onGoal={onGoal} />);
    const box = type("/goal Ship the beta");
    await vi.waitFor(() => expect(box.value).toBe(""));
    expect(onGoal).toHaveBeenCalledWith({ kind: "set", objective: "Ship the beta" });
    expect(onSend).not.toHaveBeenCalled();

    onGoal.mockImplementationOnce(async () => "No goal is set." as never);
    type("/goal");
    expect(await screen.findByTestId("composer-error")).toHaveProperty("textContent", "No goal is set.");
    expect(box.value).toBe("/goal");
  });

  it("the banner shows the goal and clears it", () => {
    const onClear = vi.fn();
    const { rerender } = render(
      <GoalBanner goal={{ objective: "Ship the beta", set_at: "2026-01-01T00:00:00Z" }} onClear={onClear} />,
    );
    expect(screen.getByTestId("goal").textContent).toContain("Ship the beta");
    fireEvent.click(screen.getByRole("button", { name: "Clear the goal" }));
    expect(onClear).toHaveBeenCalledOnce();
    rerender(<GoalBanner goal={null} onClear={onClear} />);
    expect(screen.queryByTestId("goal")).toBeNull();
  });
});

describe("conversation references", () => {
  const conversations = ["Pricing", "Launch", "Hiring", "Budget"].map((title, i) => ({ id: `t${i}`, title }));

  it("up to three picked conversations go with the message, then the chips clear", async () => {
    const onSend = vi.fn();
    render(<Composer draftKey="r1" running={false} onSend={onSend} onStop={() => {}} conversations={conversations} />);
    const open = () => fireEvent.click(screen.getByRole("button", { name: "Reference a conversation" }));
    open();
    fireEvent.click(screen.getByRole("button", { name: "Pricing" }));
    expect(screen.getByRole("button", { name: "Pricing" })).toHaveProperty("disabled", true);
    fireEvent.click(screen.getByRole("button", { name: "Launch" }));
    fireEvent.click(screen.getByRole("button", { name: "Hiring" }));
    expect(screen.queryByRole("list", { name: "Conversations to reference" })).toBeNull();
    open();
    expect(screen.getByRole("button", { name: "Budget" })).toHaveProperty("disabled", true);
    fireEvent.click(screen.getByRole("button", { name: "Remove reference Launch" }));
    expect(screen.getAllByTestId("reference-chip")).toHaveLength(2);

    type("compare these");
    await vi.waitFor(() => expect(screen.queryAllByTestId("reference-chip")).toHaveLength(0));
    expect(onSend).toHaveBeenCalledWith(
      "compare these",
      [],
      [
        { thread_id: "t0", title: "Pricing" },
        { thread_id: "t2", title: "Hiring" },
      ],
    );
  });
});

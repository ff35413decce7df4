/**
 * The user in the loop in the web app: a clarification form (human_input version 2) and tool calls
 * waiting for approval, each answered with what the run needs.
 */
import type { Message } from "@langchain/langgraph-sdk";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pendingClarification } from "../src/chat/messages";
import { Approvals, pendingApprovals, resumeValue } from "../src/harness/Approval";
import { Clarification } from "../src/harness/Clarification";

afterEach(cleanup);

const formMessage = {
  type: "tool",
  id: "t1",
  name: "ask_clarification",
  tool_call_id: "c1",
  content: "Deployment details?",
  artifact: {
    human_input: {
      version: 2,
      kind: "human_input_request",
      input_mode: "form",
      question: "Deployment details?",
      fields: [
        {
          name: "env",
          label: "Environment",
          type: "select",
          required: true,
          options: [
            { id: "env-option-1", label: "staging", value: "staging" },
            { id: "env-option-2", label: "prod", value: "prod" },
          ],
        },
        {
          name: "regions",
          label: "Regions",
          type: "multi_select",
          required: false,
          options: [
            { id: "r-1", label: "eu", value: "eu" },
            { id: "r-2", label: "us", value: "us" },
          ],
        },
        { name: "count", label: "Replicas", type: "number", required: false },
        { name: "agree", label: "Downtime is fine", type: "checkbox", required: true },
      ],
    },
  },
} as unknown as Message;

describe("clarification forms", () => {
  it("a version 2 form renders its fields; Send answers stays off until required ones are filled, then sends Label: value lines", () => {
    const request = pendingClarification([formMessage])!;
    expect(request.fields?.map((field) => field.name)).toEqual(["env", "regions", "count", "agree"]);
    const onAnswer = vi.fn();
    render(<Clarification request={request} onAnswer={onAnswer} />);
    const send = screen.getByRole("button", { name: "Send answers" }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("Environment *"), { target: { value: "prod" } });
    fireEvent.click(screen.getByLabelText("eu"));
    fireEvent.click(screen.getByLabelText("us"));
    fireEvent.change(screen.getByLabelText("Replicas"), { target: { value: "3" } });
    expect(send.disabled).toBe(true);
    fireEvent.click(screen.getByLabelText("Downtime is fine *"));
    expect(send.disabled).toBe(false);
    fireEvent.click(send);
    expect(onAnswer).toHaveBeenCalledWith("Environment: prod\nRegions: eu, us\nReplicas: 3\nDowntime is fine: yes");
  });

  it("a v1 question or a malformed form keeps the options and free-text answer", () => {
    const broken = {
      ...formMessage,
      artifact: { human_input: { version: 2, input_mode: "form", question: "Q?", fields: [{ name: 1 }] } },
    } as unknown as Message;
    expect(pendingClarification([broken])).toEqual({ question: "Q?", options: [] });
  });
});

const approval = (id: string, tool: string, args: Record<string, unknown>) => ({
  id,
  value: { kind: "tool_approval", tool_name: tool, tool_call_id: `call-${id}`, args },
});

describe("tool approvals", () => {
  it("pendingApprovals keeps only approval interrupts; resumeValue waits for every decision", () => {
    const approvals = pendingApprovals([approval("i1", "bash", { command: "ls" }), { id: "i2", value: "other" }]);
    expect(approvals.map((entry) => entry.request.tool_name)).toEqual(["bash"]);
    const two = pendingApprovals([approval("i1", "bash", {}), approval("i2", "ls", {})]);
    expect(resumeValue(two, new Map([["i1", { approved: true }]]))).toBeUndefined();
    expect(
      resumeValue(
        two,
        new Map([
          ["i1", { approved: true }],
          ["i2", { approved: false }],
        ]),
      ),
    ).toEqual({ i1: { approved: true }, i2: { approved: false } });
  });

  it("one waiting call: Approve resumes with {approved: true}; Deny with the reason typed", () => {
    const approvals = pendingApprovals([approval("i1", "bash", { command: "rm -rf build" })]);
    const onResume = vi.fn();
    render(<Approvals approvals={approvals} onResume={onResume} />);
    expect(screen.getByTestId("approval").textContent).toMatch(/Run bash\?[\s\S]*"command": "rm -rf build"/);
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(onResume).toHaveBeenCalledWith({ approved: true });
    cleanup();

    const denied = vi.fn();
    render(<Approvals approvals={approvals} onResume={denied} />);
    fireEvent.change(screen.getByLabelText("Reason for denying bash (optional)"), { target: { value: "keep build" } });
    fireEvent.click(screen.getByRole("button", { name: "Deny" }));
    expect(denied).toHaveBeenCalledWith({ approved: false, reason: "keep build" });
  });

  it("several waiting calls resume once, with a decision per interrupt id", () => {
    const approvals = pendingApprovals([approval("i1", "bash", {}), approval("i2", "ls", {})]);
    const onResume = vi.fn();
    render(<Approvals approvals={approvals} onResume={onResume} />);
    fireEvent.click(screen.getAllByRole("button", { name: "Deny" })[0]!);
    expect(onResume).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Approve" }));
    expect(onResume).toHaveBeenCalledWith({ i1: { approved: false }, i2: { approved: true } });
  });
});

/**
 * The script of the built-in demo model: what it does, step by step, for any task.
 *
 * The demo model lets a new user watch the whole harness work offline (plan, write a file in the
 * sandbox, read it back, present it, answer) without an API key. It is not an LLM and says so in
 * everything it writes. The next step is derived from the conversation itself (which tools already ran
 * in this turn), so the script survives checkpoints, restarts and `--thread` continuations.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "../messages/content.js";
import { FOLLOW_UP_INSTRUCTION_START } from "../suggestions/follow-ups.js";

/** What the demo model does next: call tools, or answer. */
export interface DemoStep {
  content: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
}

const LABEL = "[demo model]";
const NOT_AN_LLM = "This is the built-in demo model: a scripted stand-in that runs offline, not a real LLM.";

/** Decides the demo model's next step from the messages it was given and the tools bound to it. */
export function nextDemoStep(messages: readonly BaseMessage[], toolNames: readonly string[]): DemoStep {
  const turnStart = lastUserMessageIndex(messages);
  const task = turnStart >= 0 ? userTask(messages[turnStart]!) : "";
  const turn = messages.slice(turnStart + 1);
  const called = (name: string) =>
    turn
      .filter((m) => m.getType() === "ai")
      .flatMap((m) => toolCallsOf(m))
      .filter((c) => c.name === name).length;
  // A write refused because the file exists and was not read first (read-before-write): a regenerated
  // turn meets the note the discarded answer wrote. The demo does what the refusal asks, as a real
  // model would: reads the file, then writes again.
  const readFirst = (m: BaseMessage) =>
    (m as { name?: string }).name === "write_file" && /Call read_file on it first/.test(String(m.content));
  const mustReadFirst = turn.some((m) => m.getType() === "tool" && readFirst(m));
  const failure = turn
    .filter((m) => m.getType() === "tool" && !readFirst(m))
    .find((m) => (m as { status?: string }).status === "error" || String(m.content).startsWith("Error"));
  const has = (name: string) => toolNames.includes(name);
  const notePath = `/mnt/user-data/outputs/${slugify(task)}.md`;

  const instruction = messages[0]?.getType() === "system" ? contentText(messages[0].content) : "";
  if (toolNames.length === 0 && instruction.startsWith(FOLLOW_UP_INSTRUCTION_START))
    return answer(JSON.stringify(demoFollowUps(lastText(messages))));
  if (toolNames.length === 0)
    return answer(
      `${LABEL} ${NOT_AN_LLM} It was asked to respond without tools, so here is an echo of the request: ${clip(lastText(messages), 300)}`,
    );
  if (failure)
    return answer(
      `${LABEL} A tool reported a problem, so the demo stops here: ${clip(String(failure.content), 300)}\n\n${NOT_AN_LLM}`,
    );

  if (has("write_todos") && called("write_todos") === 0) {
    return call(`${LABEL} Planning the task.`, "write_todos", { todos: plan(["in_progress", "pending", "pending"]) });
  }
  if (mustReadFirst && has("read_file") && called("read_file") === 0) {
    return call(`${LABEL} The note is already there: reading it before writing over it.`, "read_file", {
      description: "Read the existing note",
      path: notePath,
    });
  }
  if (has("write_file") && (called("write_file") === 0 || (mustReadFirst && called("write_file") === 1))) {
    return call(`${LABEL} Writing a note about the task.`, "write_file", {
      description: "Write a markdown note about the task",
      path: notePath,
      content: noteFor(task),
    });
  }
  if (has("read_file") && called("read_file") === 0 && called("write_file") > 0) {
    return call(`${LABEL} Reading the note back to check it.`, "read_file", {
      description: "Read the note back",
      path: notePath,
    });
  }
  if (has("present_files") && called("present_files") === 0 && called("write_file") > 0) {
    return call(`${LABEL} Presenting the note.`, "present_files", { filepaths: [notePath] });
  }
  if (has("write_todos") && called("write_todos") === 1) {
    return call(`${LABEL} Marking the plan complete.`, "write_todos", {
      todos: plan(["completed", "completed", "completed"]),
    });
  }
  if (called("write_file") > 0) {
    const readBack = turn.find((m) => m.getType() === "tool" && (m as { name?: string }).name === "read_file");
    const lines = readBack ? String(readBack.content).split("\n").length : 0;
    return answer(
      `${LABEL} I wrote a note about your task to ${notePath}` +
        (readBack ? `, read it back (${lines} lines)` : "") +
        (called("present_files") > 0 ? " and presented it" : "") +
        `.\n\nTask: ${clip(task, 200)}\n\n${NOT_AN_LLM} Configure a real model in config.yaml (or set OPENAI_API_KEY) for real work.`,
    );
  }
  return answer(
    `${LABEL} ${NOT_AN_LLM} No file tools are available in this run, so it can only acknowledge the task: ${clip(task, 200)}`,
  );
}

/**
 * Follow-up questions for a suggestions request (`suggestions/follow-ups.ts`): fixed ones about the demo
 * itself, the first naming the user's last question, each saying it comes from the demo model.
 */
function demoFollowUps(request: string): string[] {
  const userLines = [...request.matchAll(/^User: (.+)$/gm)].map((match) => match[1]!.trim());
  const topic = clip(userLines.at(-1) ?? "", 60).replace(/[?.!]+$/, "");
  const count = Number(/Write (\d+) follow-up/.exec(request)?.[1] ?? 3);
  return [
    topic ? `(demo model) Can you go deeper into "${topic}"?` : "(demo model) Can you go deeper into that?",
    "(demo model) What would a real model do differently here?",
    "(demo model) How do I configure a real model in config.yaml?",
    "(demo model) Which files did you write for me?",
    "(demo model) What can the harness do without an API key?",
  ].slice(0, Math.max(1, count));
}

function plan(statuses: ["pending" | "in_progress" | "completed", ...("pending" | "in_progress" | "completed")[]]) {
  const steps = ["Write a note about the task to outputs", "Read the note back", "Present the note"];
  return steps.map((content, index) => ({ content, status: statuses[index] ?? "pending" }));
}

function noteFor(task: string): string {
  return [
    `# Note: ${clip(task, 80) || "demo task"}`,
    "",
    `_Written by the DeerFlow.ts demo model. ${NOT_AN_LLM}_`,
    "",
    "## Task",
    "",
    task || "(no task text)",
    "",
    "## What the harness did",
    "",
    "- The lead agent received the task through its middleware chain.",
    "- The demo model planned the steps (in plan mode), wrote this file into the thread's outputs directory,",
    "  read it back through the sandbox, and presented it as an artifact.",
    "",
    "## Next step",
    "",
    "Point DeerFlow.ts at a real model (config.yaml `models:`, or OPENAI_API_KEY) and run the task again.",
    "",
  ].join("\n");
}

function lastUserMessageIndex(messages: readonly BaseMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.getType() === "human" && !message.additional_kwargs?.hide_from_ui) return index;
  }
  return -1;
}

function userTask(message: BaseMessage): string {
  // `<current_uploads>` is the uploads block; `<uploaded_files>` is its name in older threads.
  return contentText(message.content)
    .replace(/<(current_uploads|uploaded_files)>[\s\S]*?<\/\1>/g, "")
    .trim();
}

function lastText(messages: readonly BaseMessage[]): string {
  return messages.length ? contentText(messages[messages.length - 1]!.content) : "";
}

function toolCallsOf(message: BaseMessage): { name: string }[] {
  return (message as { tool_calls?: { name: string }[] }).tool_calls ?? [];
}

function slugify(task: string): string {
  const slug = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug ? `note-${slug}` : "note";
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

function call(content: string, name: string, args: Record<string, unknown>): DemoStep {
  return { content, toolCalls: [{ name, args }] };
}

function answer(content: string): DemoStep {
  return { content, toolCalls: [] };
}

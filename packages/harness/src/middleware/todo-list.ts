/**
 * Plan mode: the model keeps a visible todo list for multi-step work.
 *
 * Adds the `write_todos` tool, which replaces the thread's `todos` channel (the CLI and UIs render it as
 * it changes), and appends the rules for using it to every model request's system message. The list is
 * replaced whole on each call, so two `write_todos` calls in one response would race: both are answered
 * with an error and neither is applied, and the model writes the list again in one call.
 *
 * langchain's own `todoListMiddleware` is not reused: it answers parallel calls from `afterModel`, after
 * which langchain JS sees no pending tool call and ends the run, so the model never reads the error
 * (reproduced with langchain 1.5.14). Here the tool itself answers with the error and the loop goes on.
 */
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { type ToolRuntime, tool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import type { TodoItem } from "../state/reducers.js";
import { threadStateSubset } from "../state/thread-state.js";

/** Name of the todo tool. */
export const WRITE_TODOS_TOOL_NAME = "write_todos";

/** Options of {@link todoListMiddleware}. */
export interface TodoListOptions {
  /** Replaces the rules appended to the system message. */
  systemPrompt?: string;
  /** Replaces the tool description. */
  toolDescription?: string;
}

/** The rules appended to the system message in plan mode. */
export const TODO_LIST_SYSTEM_PROMPT = `<todo_list_system>
You are in plan mode: keep a todo list with the \`write_todos\` tool so the user can follow your progress.

When to use it:
- The work has three or more distinct steps, or the user gave several things to do, or asked for a plan.
- Skip it for simple requests and plain questions; just answer.

How to use it:
- Write the plan before you start: concrete, checkable steps in the order you will do them.
- Exactly one item is in_progress while you work on it; mark it in_progress before you start it.
- Mark an item completed as soon as it is done, in the next write_todos call; do not save completions up.
- Only mark completed what is fully done. If something failed or is blocked, keep it in_progress and add an item for what must happen next.
- Add steps you discover, and remove steps that no longer make sense.
- Each call replaces the whole list: always send every item, with its current status.
- Call write_todos at most once per response.
- Before your final answer, every item you finished should be completed.
</todo_list_system>`;

/** The default description of `write_todos`. */
export const WRITE_TODOS_DESCRIPTION = `Create or update your todo list for the current work. The list you send replaces the previous one, so include every item with its current status: pending (not started), in_progress (working on it now; one at a time), completed (fully done). Use it for work of three or more steps, mark progress as you go, and call it at most once per response.`;

const TodoArgs = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1).describe("What the step is, in a short imperative sentence."),
        status: z.enum(["pending", "in_progress", "completed"]),
      }),
    )
    .describe("The complete todo list, in order."),
});

/** How many `write_todos` calls share the response that made the call `toolCallId`. */
export function countSiblingTodoCalls(messages: readonly BaseMessage[], toolCallId: string): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (!AIMessage.isInstance(message)) continue;
    const calls = message.tool_calls ?? [];
    if (calls.some((call) => call.id === toolCallId)) return calls.filter((call) => call.name === WRITE_TODOS_TOOL_NAME).length;
  }
  return 1;
}

/** The tool's reply: the list as the model will rely on it next turn. */
export function describeTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "Cleared the todo list.";
  const done = todos.filter((todo) => todo.status === "completed").length;
  const lines = todos.map((todo) => `- [${todo.status}] ${todo.content}`).join("\n");
  return `Updated the todo list (${done}/${todos.length} completed):\n${lines}`;
}

function createWriteTodosTool(description: string) {
  return tool(
    async ({ todos }, runtime: ToolRuntime) => {
      const toolCallId = runtime.toolCallId ?? runtime.toolCall?.id ?? "";
      const messages = ((runtime.state as { messages?: BaseMessage[] } | undefined)?.messages ?? []) as BaseMessage[];
      if (countSiblingTodoCalls(messages, toolCallId) > 1) {
        return new ToolMessage({
          name: WRITE_TODOS_TOOL_NAME,
          tool_call_id: toolCallId,
          status: "error",
          content:
            "Error: write_todos was called more than once in one response, so none of the calls was applied. Send the whole list in a single write_todos call.",
        });
      }
      return new Command({
        update: {
          todos,
          messages: [new ToolMessage({ name: WRITE_TODOS_TOOL_NAME, tool_call_id: toolCallId, content: describeTodos(todos) })],
        },
      });
    },
    { name: WRITE_TODOS_TOOL_NAME, description, schema: TodoArgs },
  );
}

/**
 * Plan mode: `write_todos` + `todos` state + the rules prompt. Put it in the chain when `is_plan_mode`.
 *
 * @example
 * createAgent({ model, tools, stateSchema: ThreadStateSchema, middleware: [todoListMiddleware()] });
 */
export function todoListMiddleware(options: TodoListOptions = {}) {
  const rules = options.systemPrompt ?? TODO_LIST_SYSTEM_PROMPT;
  return createMiddleware({
    name: "todo-list",
    stateSchema: threadStateSubset("todos"),
    tools: [createWriteTodosTool(options.toolDescription ?? WRITE_TODOS_DESCRIPTION)],
    wrapModelCall: (request, handler) => handler({ ...request, systemMessage: request.systemMessage.concat(`\n\n${rules}`) }),
  });
}

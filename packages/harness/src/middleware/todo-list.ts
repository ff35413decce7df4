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
 *
 * Two reminders keep the plan alive. When the list is in state but no `write_todos` call is left in
 * the request (summarization compacted it away), the current list is appended to the system message
 * of that request, so the model does not lose or rewrite its plan. When the model gives a final
 * answer while items are still open, the model is asked again with a hidden reminder at the end of
 * its next request, at most {@link MAX_COMPLETION_REMINDERS} times per run; a run a guard stopped on
 * purpose (loop detection, token budget) is not reopened.
 *
 * The completion reminder is transient. Kept in `messages`, it would show up in transcripts, memory and
 * every later request of the thread. It cannot live in the request alone either: langchain JS ends the
 * run after a final answer whatever `jumpTo` says, unless a message follows it. So it is appended for
 * exactly one model call and removed in the `afterModel` right after that call (and in `beforeAgent`,
 * should a run have died in between).
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { type ToolRuntime, tool } from "@langchain/core/tools";
import { Command, StateSchema } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { type TodoItem, TodoStatus } from "../state/shapes.js";
import { threadStateFields } from "../state/thread-state.js";
import type { Logger } from "../logger.js";
import { SYSTEM_REMINDER_FLAG } from "../messages/system-reminder.js";

/** Name of the todo tool. */
export const WRITE_TODOS_TOOL_NAME = "write_todos";

/** Options of {@link todoListMiddleware}. */
export interface TodoListOptions {
  /** Replaces the rules appended to the system message. */
  systemPrompt?: string;
  /** Replaces the tool description. */
  toolDescription?: string;
  /** The harness log (`log_level`); key actions are logged to it. Default: none. */
  logger?: Logger;
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
        status: TodoStatus,
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
    if (calls.some((call) => call.id === toolCallId))
      return calls.filter((call) => call.name === WRITE_TODOS_TOOL_NAME).length;
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
          messages: [
            new ToolMessage({ name: WRITE_TODOS_TOOL_NAME, tool_call_id: toolCallId, content: describeTodos(todos) }),
          ],
        },
      });
    },
    { name: WRITE_TODOS_TOOL_NAME, description, schema: TodoArgs },
  );
}

/** True when some message of the request still shows a `write_todos` call. */
export function planVisible(messages: readonly BaseMessage[]): boolean {
  return messages.some(
    (message) =>
      AIMessage.isInstance(message) && (message.tool_calls ?? []).some((call) => call.name === WRITE_TODOS_TOOL_NAME),
  );
}

/** The block appended to the system message when the plan is no longer visible in the request. */
export function todoContextReminder(todos: readonly TodoItem[]): string {
  const lines = todos.map((todo) => `- [${todo.status}] ${todo.content}`).join("\n");
  return `<todo_reminder>\nYour todo list from earlier is no longer visible in the conversation; this is its current state:\n${lines}\nKeep working from it and update it with write_todos as you go.\n</todo_reminder>`;
}

const COMPLETION_REMINDER_NAME = "todo_completion_reminder";

/** How many times one run asks the model to finish its open todos before it lets the run end. */
export const MAX_COMPLETION_REMINDERS = 2;

/** The hidden message that asks the model to finish or update its open todos before ending. */
export function todoCompletionReminder(todos: readonly TodoItem[]): HumanMessage {
  const open = todos
    .filter((todo) => todo.status !== "completed")
    .map((todo) => `- [${todo.status}] ${todo.content}`)
    .join("\n");
  return new HumanMessage({
    name: COMPLETION_REMINDER_NAME,
    // Flagged so compaction between this hook and the model call it is for never summarizes it away.
    additional_kwargs: { hide_from_ui: true, [SYSTEM_REMINDER_FLAG]: true },
    content:
      `<system_reminder>\nYou are about to finish, but your todo list still has open items:\n${open}\n` +
      "If they are done, mark them completed with write_todos, then give your final answer. If some cannot be done, update the list and say why in your answer.\n</system_reminder>",
  });
}

const reminderState = z.object({
  /** Completion reminders given in this run (reset by `beforeAgent`). */
  todo_reminders: z.number().optional(),
});

/** Removals for the completion reminders still in `messages` (the one the last model call read). */
export function dropCompletionReminders(messages: readonly BaseMessage[]): RemoveMessage[] {
  return messages
    .filter((message) => message.name === COMPLETION_REMINDER_NAME && message.id)
    .map((message) => new RemoveMessage({ id: message.id! }));
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
    stateSchema: new StateSchema({ todos: threadStateFields.todos, ...reminderState.shape }),
    tools: [createWriteTodosTool(options.toolDescription ?? WRITE_TODOS_DESCRIPTION)],
    beforeAgent: (state) => {
      const stale = dropCompletionReminders(state.messages);
      return { todo_reminders: 0, ...(stale.length > 0 && { messages: stale }) };
    },
    afterModel: {
      canJumpTo: ["model"],
      hook: (state) => {
        const read = dropCompletionReminders(state.messages);
        const done = read.length > 0 ? { messages: read } : undefined;
        const last = state.messages.at(-1);
        const given = state.todo_reminders ?? 0;
        if (!last || !AIMessage.isInstance(last) || given >= MAX_COMPLETION_REMINDERS) return done;
        if (last.tool_calls?.length || last.invalid_tool_calls?.length || last.additional_kwargs?.stop_reason)
          return done;
        const todos = state.todos ?? [];
        if (!todos.some((todo) => todo.status !== "completed")) return done;
        options.logger?.debug("reminding the model of its open todos before ending");
        return {
          messages: [...read, todoCompletionReminder(todos)],
          todo_reminders: given + 1,
          jumpTo: "model" as const,
        };
      },
    },
    wrapModelCall: (request, handler) => {
      const todos = request.state.todos ?? [];
      const reminder = todos.length > 0 && !planVisible(request.messages) ? `\n\n${todoContextReminder(todos)}` : "";
      if (reminder) options.logger?.debug("reminded the model of its todos (the plan is no longer in the request)");
      return handler({ ...request, systemMessage: request.systemMessage.concat(`\n\n${rules}${reminder}`) });
    },
  });
}

/** The plan (state.todos, written by `write_todos` in plan mode) with each step's live status. */
import { CheckCircle2, Circle, Loader2 } from "lucide-react";

/** One todo as the harness keeps it. */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/** Renders the plan; nothing when there is none. */
export function Plan({ todos }: { todos: Todo[] | null | undefined }) {
  if (!todos || todos.length === 0) return null;
  const done = todos.filter((todo) => todo.status === "completed").length;
  return (
    <section className="plan" aria-label="Plan" data-testid="plan">
      <div className="plan-head">
        Plan{" "}
        <span className="muted">
          {done}/{todos.length}
        </span>
      </div>
      <ol>
        {todos.map((todo, index) => (
          <li key={index} className={`todo todo-${todo.status}`} data-status={todo.status}>
            {todo.status === "completed" ? (
              <CheckCircle2 size={14} aria-label="done" />
            ) : todo.status === "in_progress" ? (
              <Loader2 size={14} className="spin" aria-label="in progress" />
            ) : (
              <Circle size={14} aria-label="pending" />
            )}
            <span>{todo.content}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

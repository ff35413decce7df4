/** The plan (state.todos, written by `write_todos` in plan mode) with each step's live status. */
import { CheckCircle2, Circle, Loader2 } from "lucide-react";
import { t, useLocale } from "../i18n";

/** One todo as the harness keeps it. */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
}

/** Renders the plan; nothing when there is none. */
export function Plan({ todos }: { todos: Todo[] | null | undefined }) {
  useLocale();
  if (!todos || todos.length === 0) return null;
  const done = todos.filter((todo) => todo.status === "completed").length;
  return (
    <section className="plan" aria-label={t("plan.title")} data-testid="plan">
      <div className="plan-head">
        {t("plan.title")}{" "}
        <span className="muted">
          {done}/{todos.length}
        </span>
      </div>
      <ol>
        {todos.map((todo, index) => (
          <li key={index} className={`todo todo-${todo.status}`} data-status={todo.status}>
            {todo.status === "completed" ? (
              <CheckCircle2 size={14} aria-label={t("plan.done")} />
            ) : todo.status === "in_progress" ? (
              <Loader2 size={14} className="spin" aria-label={t("plan.inProgress")} />
            ) : (
              <Circle size={14} aria-label={t("plan.pending")} />
            )}
            <span>{todo.content}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

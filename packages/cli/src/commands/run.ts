/**
 * `deerflow run "task"`: one task on a new or saved thread. Progress on stderr, the answer on stdout
 * (or one JSON object with --json), exit 3 when the agent stopped to ask a question.
 */
import { parseAgentArgs } from "../args.js";
import { ProgressRenderer } from "../progress.js";
import { artifactLines, openSession, runTurn, uploadFiles } from "../session.js";
import { UsageError } from "../usage-error.js";

/** Entry point of `deerflow run`. */
export async function main(argv: string[]): Promise<number> {
  const { flags, values, positionals } = parseAgentArgs(argv, { json: { type: "boolean", default: false }, upload: { type: "string", multiple: true } });
  const task = positionals.join(" ").trim();
  if (!task && !flags.thread) throw new UsageError('Give a task, e.g. deerflow run "summarise README.md". See deerflow run --help.');
  const json = Boolean(values.json);
  const renderer = new ProgressRenderer(process.stderr);
  const session = await openSession(flags, (line) => renderer.line(line));
  const controller = new AbortController();
  const onSigint = () => {
    renderer.line("interrupted: cancelling the run (the thread is saved)");
    controller.abort();
  };
  process.once("SIGINT", onSigint);
  try {
    renderer.line(`thread: ${session.threadId}`);
    await uploadFiles(session, (values.upload as string[] | undefined) ?? [], (line) => renderer.line(line));
    const result = await runTurn(session, task || null, renderer, controller.signal);
    const state = result.values as Record<string, unknown>;
    if (json) {
      process.stdout.write(
        `${JSON.stringify({
          thread_id: session.threadId,
          answer: result.answer,
          title: state.title ?? null,
          artifacts: state.artifacts ?? [],
          todos: state.todos ?? [],
          clarification: result.clarification,
          token_usage: { run: state.run_token_usage ?? null, thread: state.token_usage ?? null },
        })}\n`,
      );
    } else {
      process.stdout.write(`${result.answer}\n`);
    }
    const artifacts = (state.artifacts as string[] | undefined) ?? [];
    if (artifacts.length > 0) renderer.line(`artifacts:\n${artifactLines(session, artifacts).map((line) => `  ${line}`).join("\n")}`);
    renderer.line(`thread: ${session.threadId}`);
    return result.clarification ? 3 : 0;
  } finally {
    process.off("SIGINT", onSigint);
    await session.agent.close();
  }
}

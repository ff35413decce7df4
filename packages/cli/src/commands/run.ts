/**
 * `deerflow run "task"`: one task on a new or saved thread. Progress on stderr, the answer on stdout
 * (or one JSON object with --json), exit 3 when the agent stopped to ask a question.
 */
import { parseAgentArgs } from "../args.js";
import { handleInterrupts } from "../interrupt.js";
import { ProgressRenderer } from "../progress.js";
import { artifactLines, openSession, runTurn, uploadFiles } from "../session.js";
import { UsageError } from "../usage-error.js";
import { terminalSafe } from "../terminal-text.js";

/** Entry point of `deerflow run`. */
export async function main(argv: string[]): Promise<number> {
  const { flags, values, positionals } = parseAgentArgs(argv, { json: { type: "boolean", default: false }, upload: { type: "string", multiple: true } });
  const task = positionals.join(" ").trim();
  if (!task && !flags.thread) throw new UsageError('Give a task, e.g. deerflow run "summarise README.md". See deerflow run --help.');
  const json = Boolean(values.json);
  const renderer = new ProgressRenderer(process.stderr);
  const session = await openSession(flags, (line) => renderer.line(line));
  const controller = new AbortController();
  const interrupts = handleInterrupts(() => {
    renderer.line("interrupted: cancelling the run (the thread is saved; Ctrl-C again to exit at once)");
    controller.abort();
  }, (line) => renderer.line(line));
  try {
    renderer.line(`thread: ${session.threadId}`);
    const uploads = (values.upload as string[] | undefined) ?? [];
    const result = await runTurn(session, task || null, renderer, controller.signal, () => uploadFiles(session, uploads, (line) => renderer.line(line)));
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
        })}\n`,
      );
    } else {
      process.stdout.write(`${terminalSafe(result.answer)}\n`);
    }
    const artifacts = (state.artifacts as string[] | undefined) ?? [];
    if (artifacts.length > 0) renderer.line(`artifacts:\n${artifactLines(session, artifacts).map((line) => `  ${line}`).join("\n")}`);
    renderer.line(`thread: ${session.threadId}`);
    return result.clarification ? 3 : 0;
  } finally {
    await session.close();
    interrupts.dispose();
  }
}

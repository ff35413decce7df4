/**
 * `deerflow run "task"`: one task on a new or saved thread. Progress on stderr, the answer on stdout
 * (streamed on a terminal unless --no-stream; one JSON object with --json, also on failure), exit 3 when
 * the agent stopped to ask a question or waits for a tool approval. The process exits about two seconds
 * after the answer at most (see session.ts). The task can come from stdin (`-`) or a file (`--file`), for tasks too long or too
 * awkward to quote.
 */
import { readFileSync } from "node:fs";
import { AnswerPrinter, answerStreams } from "../answer-printer.js";
import { parseAgentArgs } from "../args.js";
import { describeArgs } from "../human-input.js";
import { handleInterrupts } from "../interrupt.js";
import { ProgressRenderer } from "../progress.js";
import { artifactLines, openSession, runTurn, uploadFiles, WRAP_UP_MS } from "../session.js";
import { describeFailure } from "../report-error.js";
import { UsageError } from "../usage-error.js";
import { writeOut } from "../output.js";

/** Entry point of `deerflow run`. */
export async function main(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  if (!json) return runCommand(argv, false);
  // With --json, a failure is a JSON object on stdout too (the message also goes to stderr).
  let threadId: string | null = null;
  try {
    return await runCommand(argv, true, (id) => (threadId = id));
  } catch (error) {
    const failure = describeFailure(error);
    process.stderr.write(`deerflow: ${failure.message}\n`);
    writeOut(
      `${JSON.stringify({ thread_id: threadId, error: { code: failure.code, message: failure.message, exit_code: failure.exit } })}\n`,
    );
    return failure.exit;
  }
}

/** The task: the positional words, stdin when the task is `-`, or the file given with `--file`. */
function readTask(positionals: string[], file: string | undefined): string {
  const words = positionals.join(" ").trim();
  if (file !== undefined) {
    if (words) throw new UsageError("Give the task either as words or with --file, not both.");
    try {
      return readFileSync(file, "utf8").trim();
    } catch (error) {
      throw new UsageError(
        `Cannot read the task file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      );
    }
  }
  if (words === "-") {
    if (process.stdin.isTTY)
      throw new UsageError('"-" reads the task from stdin; pipe it in, e.g. echo "task" | deerflow run -');
    return readFileSync(0, "utf8").trim();
  }
  return words;
}

async function runCommand(argv: string[], json: boolean, onThread: (id: string) => void = () => {}): Promise<number> {
  const { flags, values, positionals } = parseAgentArgs(argv, {
    json: { type: "boolean", default: false },
    upload: { type: "string", multiple: true },
    file: { type: "string" },
  });
  const task = readTask(positionals, values.file as string | undefined);
  if (!task && !flags.thread) {
    const source =
      values.file !== undefined
        ? `The task file ${String(values.file)} is empty`
        : positionals[0] === "-"
          ? "stdin gave no task"
          : "Give a task";
    throw new UsageError(`${source}, e.g. deerflow run "summarise README.md". See deerflow run --help.`);
  }
  const renderer = new ProgressRenderer(process.stderr);
  const session = await openSession(flags, (line) => renderer.line(line), { singleTurn: true });
  onThread(session.threadId);
  const controller = new AbortController();
  let answeredAt: number | undefined;
  const interrupts = handleInterrupts(
    () => {
      renderer.line(
        answeredAt === undefined
          ? "interrupted: cancelling the run (the thread is saved; Ctrl-C again to exit at once)"
          : "interrupted: exiting without waiting for memory (the next run learns it; Ctrl-C again to exit at once)",
      );
      controller.abort();
    },
    (line) => renderer.line(line),
  );
  try {
    renderer.line(`thread: ${session.threadId}`);
    const uploads = (values.upload as string[] | undefined) ?? [];
    // Plain output prints the answer as soon as it is final, before the title and memory hooks finish.
    const answer = json
      ? undefined
      : new AnswerPrinter({
          stream: answerStreams(flags),
          beforeWrite: () => renderer.stopSpinner(),
        });
    const result = await runTurn(
      session,
      task || null,
      renderer,
      controller.signal,
      () => uploadFiles(session, uploads, (line) => renderer.line(line)),
      answer,
    );
    answeredAt = answer?.answeredAt ?? Date.now();
    const state = result.values as Record<string, unknown>;
    if (json) {
      writeOut(
        `${JSON.stringify({
          thread_id: session.threadId,
          answer: result.answer,
          title: state.title ?? null,
          artifacts: state.artifacts ?? [],
          todos: state.todos ?? [],
          clarification: result.clarification,
          approvals: result.approvals.map((approval) => approval.request),
          token_usage: { run: state.run_token_usage ?? null, thread: state.token_usage ?? null },
        })}\n`,
      );
    }
    const artifacts = (state.artifacts as string[] | undefined) ?? [];
    if (artifacts.length > 0)
      renderer.line(
        `artifacts:\n${artifactLines(session, artifacts)
          .map((line) => `  ${line}`)
          .join("\n")}`,
      );
    for (const { request } of result.approvals)
      renderer.line(`waiting for approval: ${request.tool_name} ${describeArgs(request.args)}`);
    if (result.approvals.length > 0) renderer.line(`answer it with: deerflow chat --thread ${session.threadId}`);
    renderer.line(`thread: ${session.threadId}`);
    return result.clarification || result.approvals.length > 0 ? 3 : 0;
  } finally {
    // After an answer, memory updates may finish within the wrap-up (a Ctrl-C ends it); after a failure, nothing waits.
    await session.close(
      answeredAt === undefined ? undefined : { until: answeredAt + WRAP_UP_MS, signal: controller.signal },
    );
    interrupts.dispose();
  }
}

/**
 * `deerflow chat`: an interactive conversation on one thread. A clarification question is shown like
 * any answer, and the next line the user types is its answer, on the same thread. Answers stream on a
 * terminal (see answer-printer.ts). Leaving takes at most about two seconds: memory updates not done by
 * then are journaled for the next process.
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { AnswerPrinter, answerStreams } from "../answer-printer.js";
import { parseAgentArgs } from "../args.js";
import { goalArgs, goalCommand } from "../goal-command.js";
import { handleInterrupts } from "../interrupt.js";
import { ProgressRenderer } from "../progress.js";
import { openSession, runTurn, WRAP_UP_MS } from "../session.js";
import { writeOut } from "../output.js";

/** Entry point of `deerflow chat`. */
export async function main(argv: string[]): Promise<number> {
  const { flags } = parseAgentArgs(argv, {});
  const renderer = new ProgressRenderer(process.stderr);
  const session = await openSession(flags, (line) => renderer.line(line));
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: Boolean(process.stdin.isTTY) });
  let controller: AbortController | undefined;
  const leaving = new AbortController();
  const interrupts = handleInterrupts(
    () => {
      if (!controller) {
        rl.close();
        leaving.abort();
        return false;
      }
      renderer.line("interrupted: cancelling the turn (Ctrl-C again to exit at once)");
      controller.abort();
    },
    (line) => renderer.line(line),
  );
  rl.on("SIGINT", () => interrupts.interrupt());
  renderer.line(`thread: ${session.threadId}  (/new starts a thread, /exit leaves)`);
  // The line iterator buffers input that arrives while a turn runs (piped or pasted lines are kept).
  const lines = rl[Symbol.asyncIterator]();
  try {
    for (;;) {
      writeOut("you> ");
      const next = await lines.next();
      if (next.done) break;
      const line = String(next.value).trim();
      if (line === "/exit" || line === "/quit") break;
      if (line === "/new") {
        session.threadId = randomUUID();
        renderer.line(`thread: ${session.threadId}`);
        continue;
      }
      const goal = goalArgs(line);
      if (goal !== undefined) {
        writeOut(`${await goalCommand(session, goal).catch((error: Error) => `error: ${error.message}`)}\n`);
        continue;
      }
      if (!line) continue;
      controller = new AbortController();
      try {
        const answer = new AnswerPrinter({
          stream: answerStreams(flags),
          prefix: (question) => (question ? "agent (question)> " : "agent> "),
          beforeWrite: () => renderer.stopSpinner(),
        });
        await runTurn(session, line, renderer, controller.signal, undefined, answer);
      } catch (error) {
        renderer.line(`error: ${(error as Error).message}`);
      } finally {
        controller = undefined;
        interrupts.reset();
      }
    }
  } finally {
    rl.close();
    await session.close({ until: Date.now() + WRAP_UP_MS, signal: leaving.signal });
    interrupts.dispose();
  }
  return 0;
}

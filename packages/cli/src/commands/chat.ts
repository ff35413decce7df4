/**
 * `deerflow chat`: an interactive conversation on one thread. A clarification question is shown like
 * any answer, and the next line the user types is its answer, on the same thread (a form is asked
 * field by field). A tool call waiting for approval is asked `approve? [y/N]` and the run resumes.
 * Answers stream on a terminal (see answer-printer.ts). Leaving takes at most about two seconds: memory
 * updates not done by then are journaled for the next process.
 */
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { AnswerPrinter, answerStreams } from "../answer-printer.js";
import { compactCommand, isCompactCommand } from "../compact-command.js";
import { parseAgentArgs } from "../args.js";
import { askApprovals, askForm, pendingApprovals } from "../human-input.js";
import { goalArgs, goalCommand } from "../goal-command.js";
import { handleInterrupts } from "../interrupt.js";
import { ProgressRenderer } from "../progress.js";
import { openSession, runTurn, type TurnInput, type TurnResult, WRAP_UP_MS } from "../session.js";
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
  const ask = async (prompt: string) => {
    writeOut(prompt);
    const next = await lines.next();
    return next.done ? undefined : String(next.value);
  };
  const say = (text: string) => writeOut(`${text}\n`);
  /** What the user answers to a turn that waits on them, as the next turn's input; undefined: nothing waits. */
  const followUp = async (result: Pick<TurnResult, "approvals" | "form">): Promise<TurnInput | undefined> => {
    if (result.approvals.length > 0) {
      const decisions = await askApprovals(result.approvals, ask, say);
      return decisions && { resume: decisions };
    }
    if (result.form) return askForm(result.form, ask, say);
    return undefined;
  };
  /** Runs `input` and every follow-up it leads to (approvals, a form) until the agent waits for a new message. */
  const converse = async (first: TurnInput | undefined) => {
    for (let input = first; input !== undefined; ) {
      controller = new AbortController();
      try {
        const answer = new AnswerPrinter({
          stream: answerStreams(flags),
          prefix: (question) => (question ? "agent (question)> " : "agent> "),
          beforeWrite: () => renderer.stopSpinner(),
        });
        input = await followUp(await runTurn(session, input, renderer, controller.signal, undefined, answer));
      } catch (error) {
        renderer.line(`error: ${(error as Error).message}`);
        input = undefined;
      } finally {
        controller = undefined;
        interrupts.reset();
      }
    }
  };
  try {
    // A thread opened with --thread may be waiting on approvals from an earlier run.
    const waiting = pendingApprovals((await session.agent.graph.getState(threadConfig(session.threadId))).tasks);
    if (waiting.length > 0) await converse(await followUp({ approvals: waiting, form: null }));
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
      if (isCompactCommand(line)) {
        await compactCommand(session, (text) => renderer.line(text));
        continue;
      }
      const goal = goalArgs(line);
      if (goal !== undefined) {
        writeOut(`${await goalCommand(session, goal).catch((error: Error) => `error: ${error.message}`)}\n`);
        continue;
      }
      if (!line) continue;
      await converse(line);
    }
  } finally {
    rl.close();
    await session.close({ until: Date.now() + WRAP_UP_MS, signal: leaving.signal });
    interrupts.dispose();
  }
  return 0;
}

const threadConfig = (threadId: string) => ({ configurable: { thread_id: threadId } });

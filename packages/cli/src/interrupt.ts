/**
 * Ctrl-C always ends the CLI. The first one cancels the run gracefully (the thread is saved and the
 * cancelled calls are recorded); if that hangs (a tool that ignores cancellation, a stuck flush), the
 * second one exits at once with code 130.
 */

/** Counts the interrupts of one command. */
export interface InterruptHandler {
  /** Handles one Ctrl-C; readline calls it too (a TTY in raw mode sends no signal). */
  interrupt(): void;
  /** Forgets an earlier graceful cancel once it completed (chat: the next turn starts fresh). */
  reset(): void;
  /** Stops listening to SIGINT. */
  dispose(): void;
}

/**
 * Listens to SIGINT. `cancel` returns false when there was nothing to cancel (chat between turns);
 * such an interrupt does not count toward forcing.
 *
 * @example
 * const interrupts = handleInterrupts(() => controller.abort(), (line) => renderer.line(line));
 * try { await runTurn(...); } finally { interrupts.dispose(); }
 */
export function handleInterrupts(cancel: () => boolean | void, say: (line: string) => void): InterruptHandler {
  let cancelling = false;
  const interrupt = () => {
    if (cancelling) {
      say("interrupted again: exiting now");
      process.exit(130);
    }
    cancelling = cancel() !== false;
  };
  process.on("SIGINT", interrupt);
  return {
    interrupt,
    reset: () => {
      cancelling = false;
    },
    dispose: () => {
      process.off("SIGINT", interrupt);
    },
  };
}

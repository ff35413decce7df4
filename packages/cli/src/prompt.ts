/**
 * Reading one answer from stdin: a confirmation typed at the terminal, or a password, either typed
 * (not echoed) or piped in (`printf '%s\n' "$PW" | deerflow users add bob --password-stdin`). Only the
 * first line is read, so a pipe that stays open does not keep the command waiting for its end.
 * Questions go to stderr: stdout stays for the command's result.
 */
import { createInterface } from "node:readline";
import { UsageError } from "./usage-error.js";

/** True when a person can answer on stdin. */
export function canAsk(): boolean {
  return process.stdin.isTTY === true;
}

/** The first line of stdin without its line ending; null when stdin ends before any text. */
export async function readFirstLine(question?: string): Promise<string | null> {
  if (question) process.stderr.write(question);
  const lines = createInterface({ input: process.stdin, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) return line;
    return null;
  } finally {
    lines.close();
    process.stdin.pause();
  }
}

/**
 * Reads a line from the terminal without echoing it (stdin must be a TTY). Backspace deletes, Enter
 * ends, Ctrl-C and Ctrl-D on an empty line cancel with a UsageError.
 */
export function readHiddenLine(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  let typed: string[] = [];
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      settle();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n") return finish(() => resolve(typed.join("")));
        if (char === "\u0003" || (char === "\u0004" && typed.length === 0))
          return finish(() => reject(new UsageError("Cancelled; nothing was changed.")));
        if (char === "\u007f" || char === "\b") typed = typed.slice(0, -1);
        else if (char >= " ") typed.push(char);
      }
    };
    stdin.on("data", onData);
  });
}

/**
 * Runs `deerflow` with a terminal as its stdout, as a user at a shell has it, and reads what the
 * terminal would show. util-linux `script` gives the child a pseudo-terminal of 80x24; stderr goes to a
 * file, so the screen holds stdout alone. `screenText` replays the output on a minimal terminal (the
 * cursor movements and erases the CLI uses) to get the text a user finally sees.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { CLI, cliEnv } from "./run-cli.js";

/** Why a pty test cannot run here, or null. */
export function ptyUnavailable(): string | null {
  const probe = spawnSync("script", ["--version"], { encoding: "utf8" });
  return probe.status === 0 && /util-linux/.test(probe.stdout) ? null : "util-linux `script` is not installed";
}

/** A `deerflow` process whose stdout is a terminal. */
export interface PtyCli {
  /** Everything written to the terminal so far, raw. */
  readonly output: string;
  /** The CLI's stderr so far (it goes to a file). */
  stderr(): string;
  /** Resolves once the raw output matches `pattern`; rejects if the process exits first. */
  waitForOutput(pattern: RegExp): Promise<void>;
  /** Writes to the terminal's input, as typing does. */
  type(text: string): void;
  exited: Promise<number | null>;
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Starts `deerflow ...args` in `cwd` on an 80x24 terminal. */
export function startOnTerminal(cwd: string, args: string[], options: { env?: Record<string, string> } = {}): PtyCli {
  const errFile = path.join(cwd, `stderr-${process.hrtime.bigint()}.txt`);
  const command = `stty cols 80 rows 24; exec ${[process.execPath, CLI, ...args].map(shellQuote).join(" ")} 2>${shellQuote(errFile)}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: { ...cliEnv(cwd), ...options.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on("data", (chunk) => {
    output += chunk;
    for (const waiter of [...waiters]) if (waiter.pattern.test(output)) waiter.resolve();
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      child.stdin.destroy();
      resolve(code);
    }),
  );
  const stderr = () => {
    try {
      return readFileSync(errFile, "utf8");
    } catch {
      return "";
    }
  };
  return {
    get output() {
      return output;
    },
    stderr,
    waitForOutput(pattern) {
      if (pattern.test(output)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(() =>
          pattern.test(output)
            ? resolve()
            : reject(new Error(`exited before the terminal showed ${pattern}:\n${output}\n${stderr()}`)),
        );
      });
    },
    type: (text) => child.stdin.write(text),
    exited,
  };
}

/**
 * The text a terminal `columns` wide shows after `raw`: printable characters (wrapping at the edge),
 * CR, LF, and the CSI sequences the CLI and readline write (cursor up/down/to column, erase to the end
 * of the line or screen). Trailing blank lines are dropped; each row ends with "\n".
 */
export function screenText(raw: string, columns = 80): string {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  const line = () => (rows[row] ??= []);
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i]!;
    if (char === "\x1b" && raw[i + 1] === "[") {
      const match = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(raw.slice(i));
      if (!match) continue;
      i += match[0].length - 1;
      const n = Number(match[1] || "1");
      if (match[2] === "A") row = Math.max(0, row - n);
      else if (match[2] === "B") row += n;
      else if (match[2] === "G") column = n - 1;
      else if (match[2] === "K") line().length = Math.min(line().length, column);
      else if (match[2] === "J") {
        line().length = Math.min(line().length, column);
        rows.length = row + 1;
      }
      continue;
    }
    if (char === "\r") column = 0;
    else if (char === "\n") row += 1;
    else {
      if (column >= columns) {
        row += 1;
        column = 0;
      }
      const cells = line();
      while (cells.length < column) cells.push(" ");
      cells[column] = char;
      column += 1;
    }
  }
  const text = Array.from(rows, (cells) => (cells ?? []).join("").trimEnd());
  while (text.length > 0 && text.at(-1) === "") text.pop();
  return text.map((cells) => `${cells}\n`).join("");
}

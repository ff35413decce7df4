#!/usr/bin/env node
/**
 * The `deerflow` command. This file only dispatches: it loads a command's module (and with it the
 * agent stack) only when that command runs, so `deerflow --version` and `--help` answer at once.
 *
 * Exit codes: 0 done, 1 the run failed, 2 usage or configuration error, 3 the agent asked a question.
 */
import { readFileSync } from "node:fs";
import { HELP, commandHelp } from "./help.js";
import { outputFailure } from "./output.js";
import { UsageError } from "./usage-error.js";

const COMMANDS: Record<string, () => Promise<{ main(argv: string[]): Promise<number> }>> = {
  run: () => import("./commands/run.js"),
  chat: () => import("./commands/chat.js"),
  threads: () => import("./commands/threads.js"),
  memory: () => import("./commands/memory.js"),
  history: () => import("./commands/history.js"),
  mcp: () => import("./commands/mcp.js"),
  skills: () => import("./commands/skills.js"),
  agents: () => import("./commands/agents.js"),
  serve: () => import("./commands/serve.js"),
  db: () => import("./commands/db.js"),
  users: () => import("./commands/users.js"),
  cron: () => import("./commands/cron.js"),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v") {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    process.stdout.write(`deerflow ${manifest.version}\n`);
    return 0;
  }
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(rest[0] && commandHelp(rest[0]) ? commandHelp(rest[0])! : HELP);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load)
    throw new UsageError(
      `Unknown command "${command}". Commands: ${Object.keys(COMMANDS).join(", ")}. See deerflow --help.`,
    );
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(commandHelp(command) ?? HELP);
    return 0;
  }
  return (await load()).main(rest);
}

/**
 * The command is finished (its services are closed), so nothing left running may hold the process: a
 * tool that ignored cancellation would otherwise keep a Ctrl-C'd CLI alive. stdout and stderr are
 * drained first so piped output is never cut.
 */
function exit(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = () => {
    if (--pending > 0) return;
    // A failed write of the answer (a full disk) is reported here, before its error event would be.
    const failed = outputFailure();
    if (failed) onStreamError(failed);
    process.exit(code);
  };
  process.stdout.write("", done);
  process.stderr.write("", done);
}

/**
 * A closed pipe (`deerflow run ... | head`) ends the CLI quietly; a full disk behind stdout
 * (`> file` on a full disk) is said plainly instead of crashing with a stack trace.
 */
function onStreamError(error: NodeJS.ErrnoException): void {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  if (error.code === "ENOSPC") {
    try {
      process.stderr.write(
        "deerflow: The disk is full: the output could not be written (ENOSPC). Free some space and run again; the thread is saved.\n",
      );
    } finally {
      process.exit(1);
    }
  }
  process.exit(1);
}
process.stdout.on("error", onStreamError);
process.stderr.on("error", onStreamError);

main(process.argv.slice(2)).then(exit, async (error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`deerflow: ${error.message}\n`);
    exit(2);
    return;
  }
  const { reportError } = await import("./report-error.js");
  exit(reportError(error));
});

#!/usr/bin/env node
/**
 * The `deerflow` command. This file only dispatches: it loads a command's module (and with it the
 * agent stack) only when that command runs, so `deerflow --version` and `--help` answer at once.
 *
 * Exit codes: 0 done, 1 the run failed, 2 usage or configuration error, 3 the agent asked a question.
 */
import { readFileSync } from "node:fs";
import { HELP, commandHelp } from "./help.js";
import { UsageError } from "./usage-error.js";

const COMMANDS: Record<string, () => Promise<{ main(argv: string[]): Promise<number> }>> = {
  run: () => import("./commands/run.js"),
  chat: () => import("./commands/chat.js"),
  threads: () => import("./commands/threads.js"),
  memory: () => import("./commands/memory.js"),
  history: () => import("./commands/history.js"),
  serve: () => import("./commands/serve.js"),
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v") {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    process.stdout.write(`deerflow ${manifest.version}\n`);
    return 0;
  }
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(rest[0] && commandHelp(rest[0]) ? commandHelp(rest[0])! : HELP);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load) throw new UsageError(`Unknown command "${command}". Commands: ${Object.keys(COMMANDS).join(", ")}. See deerflow --help.`);
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(commandHelp(command) ?? HELP);
    return 0;
  }
  return (await load()).main(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`deerflow: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    const { reportError } = await import("./report-error.js");
    process.exitCode = reportError(error);
  },
);

/**
 * Every subcommand reads its flags the same way: `node:util` parseArgs, and an unknown or malformed flag
 * becomes a {@link UsageError} (exit code 2) that points at the command's `--help`.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";

/** Parses `config.args` for `deerflow <command>`; a bad command line throws a UsageError naming the fix. */
export function parseCommandArgs<const T extends ParseArgsConfig>(
  command: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. See deerflow ${command} --help.`);
  }
}

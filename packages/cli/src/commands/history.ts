/**
 * `deerflow history --thread ID`: the whole conversation of a thread, including the messages that
 * summarization compacted away (kept in the archive), with a marker where each compaction happened.
 */
import { parseArgs } from "node:util";
import { createHarness, formatHistory, loadConfig } from "@deerflow/harness";
import { UsageError } from "../usage-error.js";

/** Entry point of `deerflow history`. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({ args: argv, options: { config: { type: "string" }, thread: { type: "string" }, summaries: { type: "boolean", default: false } }, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. See deerflow history --help.`);
  }
  if (!values.thread) throw new UsageError("Give the thread: deerflow history --thread ID (deerflow threads lists them).");
  const harness = await createHarness(loadConfig({ path: values.config }), { onWarning: () => {} });
  try {
    const entries = await harness.history(values.thread);
    if (entries.length === 0) {
      process.stderr.write(`Thread ${values.thread} has no messages. deerflow threads lists the saved threads.\n`);
      return 1;
    }
    process.stdout.write(`${formatHistory(entries, { showSummaries: values.summaries })}\n`);
    return 0;
  } finally {
    await harness.close();
  }
}

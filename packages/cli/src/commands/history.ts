/**
 * `deerflow history --thread ID`: the whole conversation of a thread, including the messages that
 * summarization compacted away (kept in the archive), with a marker where each compaction happened.
 * Read-only: it works on a read-only home.
 */
import { formatHistory, mergeHistory } from "@deerflow/harness";
import { writeOut } from "../output.js";
import { terminalSafe } from "../terminal-text.js";
import { openThreadReader } from "../thread-reader.js";
import { UsageError } from "../usage-error.js";
import { parseCommandArgs } from "../command-args.js";

/** Entry point of `deerflow history`. */
export async function main(argv: string[]): Promise<number> {
  const values = parseCommandArgs("history", {
    args: argv,
    options: {
      config: { type: "string" },
      thread: { type: "string" },
      summaries: { type: "boolean", default: false },
    },
    strict: true,
  }).values;
  if (!values.thread)
    throw new UsageError("Give the thread: deerflow history --thread ID (deerflow threads lists them).");
  const reader = await openThreadReader(values.config);
  try {
    const saved = await reader.read(values.thread);
    const entries = mergeHistory(await reader.archive.read(values.thread), saved?.values.messages ?? []);
    if (entries.length === 0) {
      process.stderr.write(`Thread ${values.thread} has no messages. deerflow threads lists the saved threads.\n`);
      return 1;
    }
    writeOut(`${terminalSafe(formatHistory(entries, { showSummaries: values.summaries }))}\n`);
    return 0;
  } finally {
    await reader.close();
  }
}

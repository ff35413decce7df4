/** `deerflow threads`: the saved threads, newest first, with title, message count and last update. */
import { parseArgs } from "node:util";
import { createHarness, loadConfig } from "@deerflow/harness";
import { UsageError } from "../usage-error.js";

/** Entry point of `deerflow threads`. */
export async function main(argv: string[]): Promise<number> {
  let configPath: string | undefined;
  try {
    configPath = parseArgs({ args: argv, options: { config: { type: "string" } }, strict: true }).values.config;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. See deerflow threads --help.`);
  }
  const harness = await createHarness(loadConfig({ path: configPath }), { onWarning: () => {} });
  try {
    const ids = harness.listThreadIds();
    if (ids.length === 0) {
      process.stdout.write(`No threads yet in ${harness.home}. Start one with: deerflow run "task"\n`);
      return 0;
    }
    for (const id of ids) {
      const state = await harness.agent().graph.getState({ configurable: { thread_id: id } });
      const values = state.values as { title?: string | null; messages?: unknown[] };
      const updated = state.createdAt ? state.createdAt.replace("T", " ").slice(0, 19) : "?";
      process.stdout.write(`${id}  ${updated}  ${String(values.messages?.length ?? 0).padStart(3)} messages  ${values.title ?? "(untitled)"}\n`);
    }
    return 0;
  } finally {
    await harness.close();
  }
}

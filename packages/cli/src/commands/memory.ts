/**
 * `deerflow memory show | clear | forget <fact-id> | export [file] | import <file>`: what the agent
 * remembers about the user, per agent name. Import validates the file and refuses a bad one without
 * touching the current memory.
 */
import { formatMemoryForDisplay, loadConfig, openMemoryStore, resolveHome, serializeMemory } from "@deerflow/harness";
import { UsageError } from "../usage-error.js";
import { writeOut } from "../output.js";
import { terminalSafe } from "../terminal-text.js";
import { parseCommandArgs } from "../command-args.js";

const ACTIONS = ["show", "clear", "forget", "export", "import"];

/** Entry point of `deerflow memory`. */
export async function main(argv: string[]): Promise<number> {
  const parsed = parseCommandArgs("memory", {
    args: argv,
    options: { config: { type: "string" }, agent: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  const [action = "show", argument] = parsed.positionals;
  if (!ACTIONS.includes(action))
    throw new UsageError(`Unknown memory action "${action}". Use one of: ${ACTIONS.join(", ")}.`);
  const config = loadConfig({ path: parsed.values.config });
  const store = openMemoryStore(config, {
    home: resolveHome(),
    agentName: parsed.values.agent,
    onWarning: (message) => process.stderr.write(`warning: ${message}\n`),
  });
  switch (action) {
    case "show":
      writeOut(`${terminalSafe(formatMemoryForDisplay(store.load(), store.path))}\n`);
      return 0;
    case "clear":
      store.clear();
      process.stderr.write(`Cleared ${store.path}\n`);
      return 0;
    case "forget":
      if (!argument)
        throw new UsageError(
          "Give the id of the fact to forget: deerflow memory forget <fact-id> (ids are shown by deerflow memory show).",
        );
      if (!store.forgetFact(argument)) {
        process.stderr.write(`No fact with id "${argument}" in ${store.path}. See deerflow memory show.\n`);
        return 1;
      }
      process.stderr.write(`Forgot fact ${argument}\n`);
      return 0;
    case "export":
      if (argument) {
        store.exportTo(argument);
        process.stderr.write(`Exported memory to ${argument}\n`);
      } else {
        writeOut(serializeMemory(store.load()));
      }
      return 0;
    default:
      if (!argument) throw new UsageError("Give the file to import: deerflow memory import <file>.");
      store.importFrom(argument);
      process.stderr.write(`Imported ${argument} into ${store.path}\n`);
      return 0;
  }
}

/**
 * Loads the tools listed under `tools:` in config.yaml. DeerFlow names a Python object with
 * `module:attr`; here `use` is `module:export`, where a module starting with `.` or `/` is a file
 * relative to the config file and anything else is a package. The export is a langchain tool, or a
 * function returning one (or several). A bad entry fails at construction, naming the entry.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { AppConfig } from "../config/schema.js";
import { ConfigError } from "../errors.js";

type ToolEntry = AppConfig["tools"][number];

function isTool(value: unknown): value is StructuredToolInterface {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { invoke?: unknown }).invoke === "function"
  );
}

/** Imports every `tools:` entry. `baseDir` is the config file's directory (relative modules start there). */
export async function loadConfigTools(
  entries: readonly ToolEntry[],
  baseDir: string,
  onWarning: (message: string) => void,
): Promise<StructuredToolInterface[]> {
  const loaded: StructuredToolInterface[] = [];
  for (const entry of entries) {
    const separator = entry.use.lastIndexOf(":");
    if (separator <= 0 || separator === entry.use.length - 1) {
      throw new ConfigError(
        `tools: "${entry.name}": use "${entry.use}" must be module:export, e.g. ./tools/search.js:searchTool.`,
      );
    }
    const spec = entry.use.slice(0, separator);
    const exportName = entry.use.slice(separator + 1);
    const target =
      spec.startsWith(".") || spec.startsWith("/") ? pathToFileURL(path.resolve(baseDir, spec)).href : spec;
    let module: Record<string, unknown>;
    try {
      module = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(
        `tools: "${entry.name}": cannot import "${spec}" (${(error as Error).message.split("\n")[0]}).`,
        { cause: error },
      );
    }
    const value = module[exportName];
    if (value === undefined)
      throw new ConfigError(
        `tools: "${entry.name}": "${spec}" has no export named "${exportName}". Exports: ${Object.keys(module).join(", ") || "none"}.`,
      );
    const produced = typeof value === "function" && !isTool(value) ? await (value as () => unknown)() : value;
    const tools = Array.isArray(produced) ? produced : [produced];
    if (tools.length === 0 || !tools.every(isTool)) {
      throw new ConfigError(
        `tools: "${entry.name}": ${entry.use} is not a langchain tool (an object with name and invoke), nor a function returning tools.`,
      );
    }
    if (tools.length === 1 && tools[0]!.name !== entry.name)
      onWarning(`tools: "${entry.name}" loads a tool named "${tools[0]!.name}"; the model sees "${tools[0]!.name}".`);
    loaded.push(...tools);
  }
  return loaded;
}

/**
 * Finds and reads DeerFlow's `extensions_config.json`, so a user who already has one (or copies one
 * from DeerFlow's docs) gets the same MCP servers without rewriting them into config.yaml.
 *
 * Lookup order, as DeerFlow does: `DEER_FLOW_EXTENSIONS_CONFIG_PATH`, then `./extensions_config.json`,
 * then `../extensions_config.json`. Only `mcpServers` is read here; other sections (`skills`,
 * `middlewares`) belong to other subsystems and are left alone.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";

/** The file's name in the working directory and its parent. */
export const EXTENSIONS_CONFIG_FILE = "extensions_config.json";

/** Where to look and which environment to read the override from. */
export interface ExtensionsLookup {
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * The path of the extensions file in use, or null when there is none. An explicit
 * `DEER_FLOW_EXTENSIONS_CONFIG_PATH` that does not exist is an error: the user meant a file.
 */
export function findExtensionsConfig({ env, cwd }: ExtensionsLookup): string | null {
  const explicit = env.DEER_FLOW_EXTENSIONS_CONFIG_PATH;
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    if (!existsSync(file)) {
      throw new ConfigError(`DEER_FLOW_EXTENSIONS_CONFIG_PATH points to ${file}, which does not exist. Create the file or unset the variable.`, { code: "config_not_found" });
    }
    return file;
  }
  for (const dir of [cwd, path.dirname(cwd)]) {
    const file = path.join(dir, EXTENSIONS_CONFIG_FILE);
    if (existsSync(file)) return file;
  }
  return null;
}

/** The raw `mcpServers` object of `file` (empty when absent). Invalid JSON fails with the file and the reason. */
export function readExtensionsMcpServers(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON (${(error as Error).message}). Fix the file or remove it.`, { cause: error });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`${file} must contain a JSON object such as {"mcpServers": {...}}.`);
  }
  const servers = (parsed as { mcpServers?: unknown }).mcpServers;
  if (servers === undefined || servers === null) return {};
  if (typeof servers !== "object" || Array.isArray(servers)) {
    throw new ConfigError(`${file}: "mcpServers" must be an object of servers by name, e.g. {"filesystem": {"command": "npx", "args": [...]}}.`);
  }
  return servers as Record<string, unknown>;
}

/**
 * DeerFlow's `extensions_config.json`: one JSON file shared by several features (skills' enabled
 * state under `skills`, MCP servers under `mcpServers`, ...). Each feature owns one key, so every
 * writer here reads the whole file, changes only its key and writes the result atomically (temp file
 * and rename): a crash mid-write cannot leave half a file, and keys this code does not know survive.
 *
 * Found as DeerFlow finds it: `DEER_FLOW_EXTENSIONS_CONFIG_PATH`, then `./extensions_config.json`, then
 * `../extensions_config.json`.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";

/** The file name DeerFlow uses. */
export const EXTENSIONS_FILE_NAME = "extensions_config.json";

/** Where to look. */
export interface ExtensionsLookup {
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The file that was found (`exists: true`), or where a first write would create it. */
export interface ExtensionsLocation {
  path: string;
  exists: boolean;
}

/**
 * Locates `extensions_config.json`. With none present, the location a write would create is the
 * environment's path when set, else the working directory.
 *
 * @example
 * const { path, exists } = findExtensionsFile({ env: process.env, cwd: process.cwd() });
 */
export function findExtensionsFile(lookup: ExtensionsLookup = {}): ExtensionsLocation {
  const env = lookup.env ?? process.env;
  const cwd = lookup.cwd ?? process.cwd();
  const explicit = env.DEER_FLOW_EXTENSIONS_CONFIG_PATH;
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    return { path: file, exists: existsSync(file) };
  }
  for (const candidate of [path.join(cwd, EXTENSIONS_FILE_NAME), path.join(path.dirname(cwd), EXTENSIONS_FILE_NAME)]) {
    if (existsSync(candidate)) return { path: candidate, exists: true };
  }
  return { path: path.join(cwd, EXTENSIONS_FILE_NAME), exists: false };
}

/**
 * Reads the file as a plain object; a missing file is `{}`. A file that is not a JSON object throws a
 * ConfigError naming the file (callers that must not fail, like agent start-up, catch it and warn).
 */
export function readExtensionsFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON (${(error as Error).message}). Fix the file or move it away.`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ConfigError(`${file} must hold a JSON object such as {"skills": {}}. Fix the file or move it away.`);
  }
  return data as Record<string, unknown>;
}

/**
 * Rewrites the file with `change` applied to a fresh read of it, atomically. `change` gets the whole
 * object and returns the new one; keys it leaves alone are written back as they were.
 *
 * @example
 * updateExtensionsFile(file, (data) => ({ ...data, skills: { ...(data.skills as object), demo: { enabled: false } } }));
 */
export function updateExtensionsFile(
  file: string,
  change: (data: Record<string, unknown>) => Record<string, unknown>,
): void {
  const next = change(readExtensionsFile(file));
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    writeFileSync(temp, `${JSON.stringify(next, null, 2)}\n`, { flag: "wx" });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

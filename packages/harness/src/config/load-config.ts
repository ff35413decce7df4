/**
 * Reads `config.yaml` into a frozen, validated value that is passed explicitly to the agent, the CLI and
 * the server. There is no global config: two agents in one process may run with two configs.
 *
 * A bad file fails here, before any model call, with the file, the key path, the value found and what
 * was expected, so the user can fix it without reading a stack trace.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { ConfigError } from "../errors.js";
import { type AppConfig, AppConfigSchema } from "./schema.js";

/** Where to look for the file and which environment to substitute from. */
export interface LoadConfigOptions {
  /** An explicit path (`--config`). It must exist. */
  path?: string;
  /** Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
  /** Where `./config.yaml` is looked for. Defaults to `process.cwd()`. */
  cwd?: string;
}

/**
 * Finds and loads the configuration: `options.path`, then `DEER_FLOW_CONFIG_PATH`, then
 * `./config.yaml`; with none of them present, the built-in defaults apply.
 *
 * @example
 * const config = loadConfig({ path: "config.yaml" });
 * const agent = await createLeadAgent(config);
 */
export function loadConfig(options: LoadConfigOptions = {}): AppConfig {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.path ?? env.DEER_FLOW_CONFIG_PATH;
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    if (!existsSync(file)) {
      throw new ConfigError(`Config file ${file} does not exist. Pass an existing file with --config, or remove the setting to use the built-in defaults.`, {
        code: "config_not_found",
      });
    }
    return parseConfigText(readFileSync(file, "utf8"), { source: file, env });
  }
  const local = path.join(cwd, "config.yaml");
  if (existsSync(local)) return parseConfigText(readFileSync(local, "utf8"), { source: local, env });
  return parseConfigObject({}, { source: null, env });
}

/** Parses YAML text (used by `loadConfig`, and by tests with literal text). */
export function parseConfigText(text: string, options: { source: string | null; env?: Record<string, string | undefined> }): AppConfig {
  const where = options.source ?? "config";
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    const first = document.errors[0]!;
    const line = first.linePos?.[0];
    const at = line ? ` at line ${line.line}, column ${line.col}` : "";
    throw new ConfigError(`${where}: YAML syntax error${at}: ${first.message.split("\n")[0]}. Fix the file and run again.`);
  }
  const raw: unknown = document.toJS() ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(`${where}: the top level must be a mapping of sections (models:, sandbox:, ...), found ${describe(raw)}.`);
  }
  return parseConfigObject(raw as Record<string, unknown>, options);
}

/** Validates an already-parsed object (substituting `$VAR` values first) and freezes the result. */
export function parseConfigObject(raw: Record<string, unknown>, options: { source: string | null; env?: Record<string, string | undefined> }): AppConfig {
  const where = options.source ?? "config";
  const substituted = substituteEnv(raw, options.env ?? process.env, where, []);
  const result = AppConfigSchema.safeParse(substituted, { reportInput: true });
  if (!result.success) throw new ConfigError(formatIssues(where, result.error.issues));
  const names = result.data.models.map((model) => model.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate) throw new ConfigError(`${where}: models: the name "${duplicate}" is used twice. Give every model a unique name.`);
  return deepFreeze({ ...result.data, source: options.source });
}

const ENV_REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/;

/** Replaces string values of the form `$VAR` or `${VAR}` with the environment's value. */
function substituteEnv(value: unknown, env: Record<string, string | undefined>, where: string, keyPath: (string | number)[]): unknown {
  if (typeof value === "string") {
    const match = ENV_REFERENCE.exec(value.trim());
    if (!match) return value;
    const name = (match[1] ?? match[2])!;
    const found = env[name];
    if (found === undefined || found === "") {
      throw new ConfigError(`${where}: ${formatPath(keyPath)}: found "${value}", but the environment variable ${name} is not set. Export ${name} or put the value in the file.`);
    }
    return found;
  }
  if (Array.isArray(value)) return value.map((item, index) => substituteEnv(item, env, where, [...keyPath, index]));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, where, [...keyPath, key])]));
  }
  return value;
}

function formatIssues(where: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, 5).map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((key) => formatPath([...issue.path, key])).join(", ");
      return `${keys}: unknown key. Check the spelling against config.example.yaml.`;
    }
    const found = "input" in issue ? `found ${describe(issue.input)}, ` : "";
    return `${formatPath(issue.path)}: ${found}${issue.message.replace(/^Invalid (input|option): /, "")}.`;
  });
  const more = issues.length > 5 ? `\n  (and ${issues.length - 5} more problems)` : "";
  return `${where} is not valid:\n  ${lines.join("\n  ")}${more}`;
}

function formatPath(keyPath: readonly PropertyKey[]): string {
  if (keyPath.length === 0) return "(top level)";
  return keyPath.map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`)).join("");
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

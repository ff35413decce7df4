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
      throw new ConfigError(
        `Config file ${file} does not exist. Pass an existing file with --config, or remove the setting to use the built-in defaults.`,
        {
          code: "config_not_found",
        },
      );
    }
    return parseConfigText(readFileSync(file, "utf8"), { source: file, env });
  }
  const local = path.join(cwd, "config.yaml");
  if (existsSync(local)) return parseConfigText(readFileSync(local, "utf8"), { source: local, env });
  return parseConfigObject({}, { source: null, env });
}

/** Parses YAML text (used by `loadConfig`, and by tests with literal text). */
export function parseConfigText(
  text: string,
  options: { source: string | null; env?: Record<string, string | undefined> },
): AppConfig {
  const where = options.source ?? "config";
  // `merge` reads YAML 1.1 merge keys (`<<: *defaults`), which DeerFlow's PyYAML files use.
  const document = parseDocument(text, { prettyErrors: true, merge: true });
  if (document.errors.length > 0) {
    const first = document.errors[0]!;
    const line = first.linePos?.[0];
    const at = line ? ` at line ${line.line}, column ${line.col}` : "";
    throw new ConfigError(
      `${where}: YAML syntax error${at}: ${first.message.split("\n")[0]}. Fix the file and run again.`,
    );
  }
  let raw: unknown;
  try {
    // The yaml package refuses a document whose aliases expand past a limit (a "billion laughs" file).
    raw = document.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    throw new ConfigError(
      `${where}: the YAML aliases (*name) expand too much (${(error as Error).message}). Use fewer aliases, or write the values out.`,
      { cause: error },
    );
  }
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(
      `${where}: the top level must be a mapping of sections (models:, sandbox:, ...), found ${describe(raw)}.`,
    );
  }
  return parseConfigObject(raw as Record<string, unknown>, options);
}

/** Validates an already-parsed object (substituting `$VAR` values first) and freezes the result. */
export function parseConfigObject(
  raw: Record<string, unknown>,
  options: { source: string | null; env?: Record<string, string | undefined> },
): AppConfig {
  const where = options.source ?? "config";
  const typed = new Map<string, unknown>();
  const substituted = substituteEnv(raw, options.env ?? process.env, where, [], typed);
  let result = AppConfigSchema.safeParse(substituted, { reportInput: true });
  // A whole-value `$VAR` is a string; where the schema wanted a number or boolean and the value reads as
  // one, it becomes one. Only those keys change, so a string key keeps "42" as "42".
  if (!result.success) {
    let retyped = false;
    for (const issue of result.error.issues) {
      const key = JSON.stringify(issue.path);
      if (
        issue.code === "invalid_type" &&
        (issue.expected === "number" || issue.expected === "boolean") &&
        typed.has(key)
      ) {
        const value = typed.get(key);
        if (typeof value === issue.expected) {
          setAt(substituted, issue.path, value);
          retyped = true;
        }
      }
    }
    if (retyped) result = AppConfigSchema.safeParse(substituted, { reportInput: true });
  }
  if (!result.success) throw new ConfigError(formatIssues(where, result.error.issues));
  const names = result.data.models.map((model) => model.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate)
    throw new ConfigError(`${where}: models: the name "${duplicate}" is used twice. Give every model a unique name.`);
  return deepFreeze({ ...result.data, source: options.source });
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
/** A value that is entirely one reference: `$VAR`, `${VAR}` or `${VAR:-default}`. */
const WHOLE_REFERENCE = new RegExp(`^\\$(?:(${NAME})|\\{(${NAME})(?::-([^}]*))?\\})$`);
/** Inside a longer string: `$$` (a literal `$`) or `${VAR}` / `${VAR:-default}`; any other `$` is literal. */
const EMBEDDED_REFERENCE = new RegExp(`\\$\\$|\\$\\{(${NAME})(?::-([^}]*))?\\}`, "g");

/**
 * Replaces environment references in string values: a whole value `$VAR`, `${VAR}` or `${VAR:-default}`
 * (the default applies when the variable is unset or empty), `${...}` inside a longer string, and `$$`
 * for a literal `$`. `typed` receives, per key path, the number or boolean a whole-value reference reads as.
 */
function substituteEnv(
  value: unknown,
  env: Record<string, string | undefined>,
  where: string,
  keyPath: (string | number)[],
  typed: Map<string, unknown>,
): unknown {
  if (typeof value === "string") {
    const lookup = (name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        `${where}: ${formatPath(keyPath)}: found "${value}", but the environment variable ${name} is not set. Export ${name}, write \${${name}:-default}, or put the value in the file.`,
      );
    };
    const whole = WHOLE_REFERENCE.exec(value.trim());
    if (whole) {
      const text = lookup((whole[1] ?? whole[2])!, whole[3]);
      const scalar = readScalar(text);
      if (scalar !== undefined) typed.set(JSON.stringify(keyPath), scalar);
      return text;
    }
    if (!value.includes("$")) return value;
    return value.replace(EMBEDDED_REFERENCE, (match, name: string | undefined, fallback: string | undefined) =>
      match === "$$" ? "$" : lookup(name!, fallback),
    );
  }
  if (Array.isArray(value))
    return value.map((item, index) => substituteEnv(item, env, where, [...keyPath, index], typed));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteEnv(item, env, where, [...keyPath, key], typed)]),
    );
  }
  return value;
}

/** The number or boolean a variable's text reads as (`42`, `0.5`, `true`, `false`), else undefined. */
function readScalar(text: string): number | boolean | undefined {
  const trimmed = text.trim();
  if (/^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === "true";
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return Number(trimmed);
  return undefined;
}

function setAt(root: unknown, keyPath: readonly PropertyKey[], value: unknown): void {
  let node = root as Record<PropertyKey, unknown>;
  for (const key of keyPath.slice(0, -1)) node = node[key] as Record<PropertyKey, unknown>;
  node[keyPath.at(-1)!] = value;
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
  return keyPath
    .map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${String(key)}`))
    .join("");
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

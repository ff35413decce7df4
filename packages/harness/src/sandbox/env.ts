/**
 * The environment a sandboxed command sees. The harness process usually holds model API keys and
 * database URLs in its environment; a shell the model drives must not be able to `env | curl` them out.
 * No deny-list of names can know every secret (`GITHUB_PAT`, `MYSQL_PWD`, a proxy URL with a password),
 * so host commands (local provider) get only an allow-list of harmless variables, and even those are
 * dropped when their value carries URL credentials; the bubblewrap provider starts from an empty
 * environment (`--clearenv`) and sets only the basics.
 */

/** Variables a host command keeps (besides `LC_*`): what shells and tools need to behave normally. */
const HOST_ENV_ALLOW = new Set([
  "PATH",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
  "COLUMNS",
  "LINES",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
]);

/** True for a value like `http://user:pass@host` (credentials inside a URL). */
export function hasUrlCredentials(value: string): boolean {
  return /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/@]*:[^\s/@]*@/.test(value) || /:\/\/[^\s/@:]+@/.test(value);
}

/**
 * The environment of a host command: only allow-listed variables (and `LC_*`) from `source`, none
 * whose value holds URL credentials, then `overrides` (trusted).
 *
 * @example
 * ```ts
 * buildHostCommandEnv({ PATH: "/usr/bin", GITHUB_PAT: "ghp_...", HTTPS_PROXY: "http://u:p@proxy:3128" }, { HOME: "/ws" });
 * // { PATH: "/usr/bin", HOME: "/ws" }
 * ```
 */
export function buildHostCommandEnv(
  source: Readonly<Record<string, string | undefined>>,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !(HOST_ENV_ALLOW.has(name) || /^LC_[A-Z_]+$/.test(name))) continue;
    if (hasUrlCredentials(value)) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) if (isPosixName(name)) env[name] = value;
  return env;
}

const SECRET_NAME_PARTS = [
  "KEY",
  "SECRET",
  "TOKEN",
  "PASS",
  "PWD",
  "CREDENTIAL",
  "DSN",
  "AUTH",
  "COOKIE",
  "SESSION",
  "PRIVATE",
];
const SECRET_NAME_WORDS = /(^|_)(PAT|PW|PIN|OTP)(_|$)/;
const NOT_SECRET = new Set(["PWD", "OLDPWD"]);
const SECRET_NAMES = new Set(["DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "POSTGRES_URL", "AMQP_URL"]);

/** True when an environment variable name looks like it holds a credential. */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRET.has(upper)) return false;
  return (
    SECRET_NAMES.has(upper) || SECRET_NAME_PARTS.some((part) => upper.includes(part)) || SECRET_NAME_WORDS.test(upper)
  );
}

/**
 * Copies `source` without secret-looking variables, then applies `overrides` (which are trusted and
 * kept even when their names look secret, e.g. a skill's declared token). Names that are not valid
 * POSIX identifiers are dropped.
 *
 * @example
 * ```ts
 * buildSandboxEnv({ PATH: "/usr/bin", OPENAI_API_KEY: "sk-..." }, { HOME: "/work" });
 * // { PATH: "/usr/bin", HOME: "/work" }
 * ```
 */
export function buildSandboxEnv(
  source: Readonly<Record<string, string | undefined>>,
  overrides: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !isPosixName(name) || isSecretEnvName(name) || hasUrlCredentials(value)) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(overrides)) if (isPosixName(name)) env[name] = value;
  return env;
}

/** The fixed environment of a bubblewrap command (applied after `--clearenv`). */
export function bwrapBaseEnv(): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
    HOME: "/mnt/user-data/workspace",
    USER: "sandbox",
    LANG: "C.UTF-8",
    TERM: "dumb",
    TMPDIR: "/tmp",
  };
}

function isPosixName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

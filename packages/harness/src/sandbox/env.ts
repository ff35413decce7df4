/**
 * The environment a sandboxed command sees. The harness process usually holds model API keys and
 * database URLs in its environment; a shell the model drives must not be able to `env | curl` them out.
 * The local provider inherits the host environment minus anything that looks like a secret; the
 * bubblewrap provider starts from an empty environment (`--clearenv`) and sets only the basics.
 */

const SECRET_NAME_PARTS = ["KEY", "SECRET", "TOKEN", "PASS", "CREDENTIAL", "DSN", "AUTH", "COOKIE", "SESSION", "PRIVATE"];
const SECRET_NAMES = new Set(["DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "POSTGRES_URL", "AMQP_URL"]);

/** True when an environment variable name looks like it holds a credential. */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_NAMES.has(upper) || SECRET_NAME_PARTS.some((part) => upper.includes(part));
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
    if (value === undefined || !isPosixName(name) || isSecretEnvName(name)) continue;
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

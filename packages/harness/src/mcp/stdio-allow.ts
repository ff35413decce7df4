/**
 * `server.mcp_stdio_allow`: which stdio MCP servers a config written over HTTP may start. Writing a
 * stdio server is running a program on the host (DeerFlow PR #1646), so the check must hold for the
 * whole command line, not its first word: with `npx` allowed by name, `npx -c '<shell>'` (or
 * `npx -p <any package>`, `npx github:me/evil`, `NODE_OPTIONS=--import=data:...`) runs anything.
 *
 * The list therefore names packages, not commands:
 *
 * - `"@modelcontextprotocol/server-filesystem"`, `"mcp-server-fetch"`: that package, started by a
 *   package runner (`npx`, `bunx`, `pnpm dlx`, `yarn dlx`, `uvx`, `uv tool run`, `pipx run`) with no
 *   runner option other than `-y`/`--yes`/`-q`/`--quiet` (npx, yarn), from the registry by name and an
 *   optional plain version (`@1.2.3`, `@latest`, `==1.2`). Arguments after the package are its own.
 *   The same entry also allows a program of exactly that name on PATH (`mcp-server-fetch --port 1`).
 * - A whole command line with spaces, `"node /opt/mcp/server.js"`: exactly that command and arguments.
 *
 * A runner, shell or interpreter named alone (`"npx"`, `"uvx"`, `"node"`, `"bash"`) allows nothing:
 * any code runs through it. Every allowed entry still may not set variables that change what runs
 * (`PATH`, `NODE_OPTIONS`, `npm_config_*`, `UV_*`, `LD_PRELOAD`, ...).
 */

/** A package runner: the words after the command before the package, the options it may carry, and its registry. */
interface Runner {
  sub: readonly string[];
  flags: readonly string[];
  registry: "npm" | "pypi";
}

const RUNNERS: Record<string, Runner> = {
  npx: { sub: [], flags: ["-y", "--yes", "-q", "--quiet"], registry: "npm" },
  bunx: { sub: [], flags: [], registry: "npm" },
  pnpm: { sub: ["dlx"], flags: [], registry: "npm" },
  yarn: { sub: ["dlx"], flags: ["-q", "--quiet"], registry: "npm" },
  uvx: { sub: [], flags: [], registry: "pypi" },
  uv: { sub: ["tool", "run"], flags: [], registry: "pypi" },
  pipx: { sub: ["run"], flags: [], registry: "pypi" },
};

/** Programs that run whatever their arguments say: never allowed by name alone. */
const RUNS_ANYTHING = new Set([
  ...Object.keys(RUNNERS),
  "npm",
  "pip",
  "pip3",
  "node",
  "nodejs",
  "deno",
  "bun",
  "python",
  "python3",
  "ruby",
  "perl",
  "php",
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "fish",
  "pwsh",
  "powershell",
  "cmd",
  "env",
  "sudo",
  "doas",
  "xargs",
  "nohup",
  "timeout",
  "nice",
  "busybox",
  "docker",
  "podman",
]);

/** Variables that change which program runs or what it loads; an allowed server may not set them. */
const RISKY_ENV =
  /^(PATH|HOME|USERPROFILE|SHELL|ENV|BASH_ENV|TMPDIR|PERL5OPT|RUBYOPT|GIT_.*|NODE_(?!ENV$).*|NPM_.*|YARN_.*|PNPM_.*|BUN_.*|BUNFIG.*|COREPACK_.*|UV_.*|PIP_.*|PIPX_.*|PYTHON.*|LD_.*|DYLD_.*|XDG_.*)$/i;

const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PYPI_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/;
/** A registry version or tag: no `:` or `/`, so no `npm:` alias, `file:`, git or URL in its place. */
const VERSION = /^[A-Za-z0-9*^~<>=.+!-]+$/;

/** PEP 503: PyPI names compare case-insensitively, with runs of `-`, `_`, `.` equal. */
const pypiKey = (name: string) => name.toLowerCase().replace(/[-_.]+/g, "-");

/** The package name of a runner's package argument, or null when it is not a plain registry name and version. */
export function packageOf(spec: string, registry: "npm" | "pypi"): string | null {
  if (registry === "npm") {
    const at = spec.indexOf("@", 1);
    const name = at === -1 ? spec : spec.slice(0, at);
    const version = at === -1 ? null : spec.slice(at + 1);
    if (!NPM_NAME.test(name) || (version !== null && !VERSION.test(version))) return null;
    return name;
  }
  const match = /^([^=@]+)(?:==|@)?(.*)$/.exec(spec);
  if (!match || !PYPI_NAME.test(match[1]!)) return null;
  if (spec.length > match[1]!.length && !VERSION.test(match[2]!)) return null;
  return pypiKey(match[1]!);
}

/** The package a runner command line starts, or a reason it is not a plain "runner package args..." line. */
function runnerPackage(
  runner: Runner,
  args: readonly string[],
): { name: string; registry: "npm" | "pypi" } | { refused: string } {
  let index = 0;
  for (const word of runner.sub) {
    if (args[index] !== word) return { refused: `only "${[...runner.sub].join(" ")} <package>" is allowed` };
    index++;
  }
  while (index < args.length && args[index]!.startsWith("-")) {
    if (!runner.flags.includes(args[index]!))
      return { refused: `the option "${args[index]!.slice(0, 40)}" is not allowed` };
    index++;
  }
  const spec = args[index];
  if (spec === undefined) return { refused: "it names no package" };
  const name = packageOf(spec, runner.registry);
  if (name === null)
    return { refused: `"${spec.slice(0, 100)}" is not a registry package name (with an optional version)` };
  return { name, registry: runner.registry };
}

/** True when `entry` allows nothing (a runner, shell or interpreter named alone): worth a warning. */
export function isBareRunnerEntry(entry: string): boolean {
  return RUNS_ANYTHING.has(entry.trim());
}

/**
 * Null when `allow` lets this stdio server start, else one sentence saying why not (for a 422 or a
 * warning; it names the command but no env value).
 *
 * @example
 * checkStdioAllowed("npx", ["-y", "@modelcontextprotocol/server-filesystem", "/data"], {}, ["@modelcontextprotocol/server-filesystem"]); // null
 * checkStdioAllowed("npx", ["-c", "touch /tmp/pwned"], {}, ["npx"]); // "... the option \"-c\" is not allowed ..."
 */
export function checkStdioAllowed(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  allow: readonly string[],
): string | null {
  const shown = [command, ...args].join(" ").slice(0, 200);
  const risky = Object.keys(env).find((key) => RISKY_ENV.test(key));
  if (risky)
    return `"${shown}" sets ${risky}, which changes what runs; stdio servers written over HTTP may not set it.`;
  const line = [command, ...args];
  for (const entry of allow) {
    const words = entry.trim().split(/\s+/);
    if (words.length > 1 && words.length === line.length && words.every((word, i) => word === line[i])) return null;
  }
  const names = allow.map((entry) => entry.trim()).filter((entry) => !/\s/.test(entry) && !RUNS_ANYTHING.has(entry));
  const runner = RUNNERS[command];
  if (runner) {
    const found = runnerPackage(runner, args);
    if ("refused" in found) return `"${shown}" is not a plain package start: ${found.refused}.`;
    const key = (name: string) => (found.registry === "pypi" ? pypiKey(name) : name);
    if (names.some((entry) => key(entry) === found.name)) return null;
    return `"${shown}" starts the package "${found.name}", which is not in server.mcp_stdio_allow.`;
  }
  if (!RUNS_ANYTHING.has(command) && names.includes(command)) return null;
  return `"${shown}" is not allowed by server.mcp_stdio_allow.`;
}

/**
 * `args` as a settings page may show them: option names stay (`--port`; `--token=` loses its value), as
 * do a runner's own words and the registry package it starts (`npx -y <package>`); every other value
 * becomes `mask`. Arguments are where servers take tokens (`--api-key sk-...`, a database URL), and a
 * reader only needs to recognise the server.
 *
 * @example
 * maskStdioArgs("npx", ["-y", "@modelcontextprotocol/server-postgres", "postgres://u:pw@db/x"]);
 * // ["-y", "@modelcontextprotocol/server-postgres", "***"]
 */
export function maskStdioArgs(command: string | undefined, args: readonly string[], mask = "***"): string[] {
  const runner = command === undefined ? undefined : RUNNERS[command];
  let packageAt = -1;
  if (runner) {
    let index = 0;
    while (index < runner.sub.length && args[index] === runner.sub[index]) index++;
    while (index < args.length && args[index]!.startsWith("-")) index++;
    if (index < args.length && packageOf(args[index]!, runner.registry) !== null) packageAt = index;
  }
  return args.map((arg, index) => {
    if (index === packageAt || (runner && index < runner.sub.length && arg === runner.sub[index])) return arg;
    if (/^--?[A-Za-z]/.test(arg)) {
      const equals = arg.indexOf("=");
      return equals === -1 ? arg : `${arg.slice(0, equals + 1)}${mask}`;
    }
    return mask;
  });
}

/** The advice that follows a refusal: how to allow a server on purpose. */
export const STDIO_ALLOW_HINT =
  'List the package (e.g. "@modelcontextprotocol/server-filesystem") or the exact command line (e.g. "node /opt/mcp/server.js") in server.mcp_stdio_allow in config.yaml, then restart. A runner or interpreter named alone ("npx", "uvx", "node") allows nothing.';

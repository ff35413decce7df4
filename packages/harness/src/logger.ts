/**
 * The harness's own log: what it decided and did (a title set, a memory update applied, a model or
 * database setting it could not honour), on stderr so stdout stays the answer. `log_level` in
 * config.yaml picks how much is shown. A logger is a value passed down to the middlewares that use it,
 * like config; there is no global one.
 */

/** Levels in increasing severity; `warning` (DeerFlow's spelling) means `warn`. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A leveled logger. `scope` prefixes lines from one component (`title`, `memory`, ...). */
export interface Logger {
  readonly level: LogLevel;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** The same logger with lines prefixed `scope: `. */
  child(scope: string): Logger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Lowest level written. Default "info". */
  level?: LogLevel | "warning";
  /** Where lines go. Default: stderr. */
  write?: (line: string) => void;
}

/**
 * Creates a logger that writes `[deerflow] level scope: message` lines at or above `level`.
 *
 * @example
 * const logger = createLogger({ level: config.log_level });
 * logger.child("title").debug('set "Weather in Lyon"');
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level: LogLevel = options.level === "warning" ? "warn" : (options.level ?? "info");
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const make = (scope: string): Logger => {
    const log = (at: LogLevel) => (message: string) => {
      if (SEVERITY[at] >= SEVERITY[level]) write(`[deerflow] ${at} ${scope ? `${scope}: ` : ""}${message}`);
    };
    return {
      level,
      debug: log("debug"),
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      child: (name) => make(scope ? `${scope}.${name}` : name),
    };
  };
  return make("");
}

/** A logger that drops everything (tests, embedders that log elsewhere). */
export const silentLogger: Logger = createLogger({ write: () => {} });

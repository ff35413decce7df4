/**
 * The limits of the file and shell tools, with DeerFlow's defaults. One object so the caller maps the
 * `sandbox:` config section once and every tool reads the same numbers.
 */
import { SANDBOX_LIMIT_DEFAULTS } from "../config/defaults.js";

/** Per-tool output and size limits. */
export interface SandboxToolLimits {
  /** `read_file` output cap in characters (head kept). DeerFlow: 50000. */
  readFileMaxChars: number;
  /** `ls` output cap in characters (head kept). DeerFlow: 20000. */
  lsMaxChars: number;
  /** `bash` output cap in characters (middle cut). DeerFlow: 20000; 0 = no truncation. */
  bashOutputMaxChars: number;
  /** Largest non-append `write_file` payload in UTF-8 bytes. DeerFlow: 80 KiB; 0 = no limit. */
  writeFileMaxBytes: number;
  /** Default `glob` result count (the model may ask for up to 1000). DeerFlow: 200. */
  globMaxResults: number;
  /** Default `grep` match count (the model may ask for up to 500). DeerFlow: 100. */
  grepMaxResults: number;
}

/** The tool limits a config's `sandbox:` section sets (its limit keys, as `SANDBOX_LIMIT_DEFAULTS` names them). */
export function toolLimitsFrom(
  sandbox: Readonly<Record<keyof typeof SANDBOX_LIMIT_DEFAULTS, number>>,
): SandboxToolLimits {
  return {
    readFileMaxChars: sandbox.read_file_output_max_chars,
    lsMaxChars: sandbox.ls_output_max_chars,
    bashOutputMaxChars: sandbox.bash_output_max_chars,
    writeFileMaxBytes: sandbox.write_file_max_bytes,
    globMaxResults: sandbox.glob_max_results,
    grepMaxResults: sandbox.grep_max_results,
  };
}

/** DeerFlow's defaults. */
export const DEFAULT_TOOL_LIMITS: Readonly<SandboxToolLimits> = Object.freeze(toolLimitsFrom(SANDBOX_LIMIT_DEFAULTS));

/** Hard ceilings on what the model may ask `glob` and `grep` for. */
export const GLOB_MAX_RESULTS_CEILING = 1000;
export const GREP_MAX_RESULTS_CEILING = 500;

/** Largest file `read_file` loads whole; bigger files need a line range (streamed). */
export const READ_FILE_WHOLE_MAX_BYTES = 10 * 1024 * 1024;
/** Largest image `view_image` accepts. DeerFlow: 20 MiB. */
export const VIEW_IMAGE_MAX_BYTES = 20 * 1024 * 1024;

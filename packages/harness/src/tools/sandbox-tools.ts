/**
 * The sandbox tool set in DeerFlow's order, built from one provider and one set of limits. `bash` is
 * left out when the provider does not allow it (the local provider without `allow_host_bash`), and
 * `view_image` is included only for vision models.
 */
import type { StructuredToolInterface } from "@langchain/core/tools";
import { bashAuditPath } from "../sandbox/bash-audit.js";
import type { SandboxProvider } from "../sandbox/sandbox.js";
import { createBashTool } from "./bash.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { DEFAULT_TOOL_LIMITS, type SandboxToolLimits } from "./limits.js";
import { createLsTool } from "./ls.js";
import { createPresentFilesTool } from "./present-files.js";
import { createReadFileTool } from "./read-file.js";
import { createStrReplaceTool } from "./str-replace.js";
import { createViewImageTool } from "./view-image.js";
import { createWriteFileTool } from "./write-file.js";

/** Options of {@link createSandboxTools}. */
export interface SandboxToolsOptions {
  provider: SandboxProvider;
  /** Output and size limits; missing keys take DeerFlow's defaults. */
  limits?: Partial<SandboxToolLimits>;
  /** Include `view_image` (the model has `supports_vision`). */
  vision: boolean;
  /** Where `bash` records every command (JSONL). Default `{home}/logs/bash-audit.jsonl`; null: no log. */
  bashAuditLog?: string | null;
}

/**
 * Builds bash (when allowed), ls, read_file, write_file, str_replace, glob, grep, present_files and
 * (with `vision`) view_image.
 *
 * @example
 * ```ts
 * const tools = createSandboxTools({ provider, limits: { bashOutputMaxChars: 20000 }, vision: false });
 * ```
 */
export function createSandboxTools(options: SandboxToolsOptions): StructuredToolInterface[] {
  const limits: SandboxToolLimits = { ...DEFAULT_TOOL_LIMITS, ...options.limits };
  const { provider } = options;
  const tools: StructuredToolInterface[] = [];
  if (provider.bashAvailable) {
    const auditLog = options.bashAuditLog === undefined ? bashAuditPath(provider.home) : options.bashAuditLog;
    tools.push(createBashTool({ provider, outputMaxChars: limits.bashOutputMaxChars, auditLog }));
  }
  tools.push(
    createLsTool({ provider, maxChars: limits.lsMaxChars }),
    createReadFileTool({ provider, maxChars: limits.readFileMaxChars }),
    createWriteFileTool({ provider, maxBytes: limits.writeFileMaxBytes }),
    createStrReplaceTool({ provider }),
    createGlobTool({ provider, defaultMaxResults: limits.globMaxResults }),
    createGrepTool({ provider, defaultMaxResults: limits.grepMaxResults }),
    createPresentFilesTool({ provider }),
  );
  if (options.vision) tools.push(createViewImageTool({ provider }));
  return tools;
}

/**
 * One sentence for the tool list and the CLI when `bash` is not offered, or null when it is.
 * DeerFlow's default keeps host bash off, because the local provider runs commands on the host.
 */
export function bashAvailabilityNote(provider: Pick<SandboxProvider, "kind" | "bashAvailable">): string | null {
  if (provider.bashAvailable) return null;
  return (
    "bash is not available: commands would run directly on the host (local sandbox) and sandbox.allow_host_bash is false, " +
    "DeerFlow's default. Install bubblewrap (scripts/setup-bwrap.sh) for an isolated shell, or set sandbox.allow_host_bash: true."
  );
}

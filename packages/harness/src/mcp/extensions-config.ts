/**
 * The `mcpServers` section of DeerFlow's `extensions_config.json`, so a user who already has one (or
 * copies one from DeerFlow's docs) gets the same MCP servers without rewriting them into config.yaml.
 * Finding and reading the file is shared with skills (`config/extensions-file.ts`); other sections
 * (`skills`, `middlewares`) belong to other subsystems and are left alone.
 */
import { ConfigError } from "../errors.js";
import { readExtensionsFile } from "../config/extensions-file.js";

/** The raw `mcpServers` object of `file` (empty when the file or the key is absent). A bad file fails with the file and the reason. */
export function readExtensionsMcpServers(file: string): Record<string, unknown> {
  const servers = readExtensionsFile(file).mcpServers;
  if (servers === undefined || servers === null) return {};
  if (typeof servers !== "object" || Array.isArray(servers)) {
    throw new ConfigError(
      `${file}: "mcpServers" must be an object of servers by name, e.g. {"filesystem": {"command": "npx", "args": [...]}}.`,
    );
  }
  return servers as Record<string, unknown>;
}
